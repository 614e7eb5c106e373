// The page's two DOM helpers: a typed createElement and a lookup by id. Every demo module builds
// its elements through `el`, so properties and children are set the same way everywhere.

type Props<K extends keyof HTMLElementTagNameMap> = Partial<Omit<HTMLElementTagNameMap[K], 'style'>> & {
  role?: string;
};

/** A small createElement with properties and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props<K> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  const { role, ...rest } = props;
  Object.assign(node, rest);
  if (role) node.setAttribute('role', role);
  node.append(...children);
  return node;
}

/** An element of index.html that the page cannot run without. */
export function byId(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`index.html has no #${id}`);
  return node;
}
