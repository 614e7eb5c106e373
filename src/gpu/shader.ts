// The gather shader's text per variant. Only the `alias Word` line changes between variants; the
// bit-level variants are the u32 text with the gather_bits entry point (MSB_FIRST set for uint1).

import gatherSource from '../../shaders/split-gather.wgsl?raw';
import type { UnitBits } from '../planner/types.js';

const WORD_TYPE: Readonly<Record<UnitBits, string>> = { 1: 'u32', 32: 'u32', 64: 'vec2<u32>', 128: 'vec4<u32>' };
const ALIAS_LINE = /^alias Word = .*;$/m;

export function shaderText(unit: UnitBits): string {
  return gatherSource.replace(ALIAS_LINE, `alias Word = ${WORD_TYPE[unit]};`);
}

export function entryPoint(unit: UnitBits): 'gather_words' | 'gather_bits' {
  return unit === 1 ? 'gather_bits' : 'gather_words';
}
