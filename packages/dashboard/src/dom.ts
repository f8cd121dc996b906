/** Small DOM helpers: elements built in code (no HTML strings, so no markup injection from data). */

type Attributes = Readonly<Record<string, string | number | boolean | undefined>>;
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** A labelled control: the label wraps it, so clicking the text focuses it. */
export function field(label: string, control: HTMLElement): HTMLLabelElement {
  return h('label', { class: 'field' }, h('span', {}, label), control);
}

export function select(
  name: string,
  options: readonly (readonly [value: string, label: string])[],
  selected?: string,
): HTMLSelectElement {
  const element = h('select', { name });
  for (const [value, label] of options) {
    element.append(h('option', { value, selected: value === selected }, label));
  }
  return element;
}

/** A row of controls above a view's content. */
export function toolbar(...controls: HTMLElement[]): HTMLElement {
  return h('div', { class: 'toolbar' }, ...controls);
}

/** yyyyMMdd <-> the yyyy-MM-dd of a date input. */
export function toInputDate(ymd: string): string {
  return `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;
}

export function fromInputDate(value: string): string {
  return value.replaceAll('-', '');
}
