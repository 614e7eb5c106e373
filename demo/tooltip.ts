// One floating tooltip for every grid on the page, for mouse and touch alike: a mouse shows it by
// hovering, a click or a tap shows it and keeps it until the next press elsewhere. It is placed
// inside the viewport, so it never widens the page on a phone.

import { el } from './dom.js';

/** Gap between the pointer and the tooltip, and between the tooltip and the viewport's edge. */
const GAP = 12;
const EDGE = 6;

export class Tooltip {
  readonly node = el('div', { id: 'tip', role: 'tooltip' });
  /** Set by a click or tap: the tooltip stays until a press lands outside the grid it belongs to. */
  private pinnedTo: Element | undefined;

  constructor() {
    this.node.hidden = true;
    document.body.append(this.node);
    document.addEventListener('pointerdown', (e) => {
      if (this.pinnedTo && !(e.target instanceof Node && this.pinnedTo.contains(e.target))) this.hide();
    });
  }

  /** Shows `textAt(event)` over `target` on hover (mouse) and on click or tap (any pointer). */
  attach(target: Element, textAt: (e: MouseEvent) => string): void {
    target.addEventListener('pointermove', (e) => {
      const p = e as PointerEvent;
      if (p.pointerType === 'mouse' && this.pinnedTo !== target) this.show(p, textAt(p), false);
    });
    // A touch also ends in pointerleave, right after the tap that should keep the tooltip shown.
    target.addEventListener('pointerleave', (e) => {
      if ((e as PointerEvent).pointerType === 'mouse' && !this.pinnedTo) this.hide();
    });
    target.addEventListener('click', (e) => {
      const m = e as MouseEvent;
      this.pinnedTo = target;
      this.show(m, textAt(m), (m as PointerEvent).pointerType !== 'mouse');
    });
  }

  hide(): void {
    this.node.hidden = true;
    this.pinnedTo = undefined;
  }

  /** Below and right of a mouse; above a finger, which would cover it. Clamped to the viewport. */
  private show(e: MouseEvent, text: string, above: boolean): void {
    this.node.textContent = text;
    this.node.hidden = false;
    const { offsetWidth: w, offsetHeight: h } = this.node;
    const right = scrollX + document.documentElement.clientWidth - EDGE - w;
    const left = Math.max(scrollX + EDGE, Math.min(e.pageX + GAP, right));
    const top = above && e.pageY - GAP - h >= scrollY ? e.pageY - GAP - h : e.pageY + GAP;
    this.node.style.left = `${left}px`;
    this.node.style.top = `${top}px`;
  }
}
