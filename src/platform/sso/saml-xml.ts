import { DOMParser, type Element, onErrorStopParsing } from '@xmldom/xmldom';
import type { Refusal } from '../operations/sso-provision.js';

/** The namespaces a SAML response is read in. */
export const NS = {
  samlp: 'urn:oasis:names:tc:SAML:2.0:protocol',
  saml: 'urn:oasis:names:tc:SAML:2.0:assertion',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
} as const;

/** A response refused by one of the checks of docs/sso.md: what its page and `sso.failed` say. */
export class SamlRefusal extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.check);
    this.name = 'SamlRefusal';
  }
}

/** Refuses the response: 400 when the response is not acceptable, 403 when the person is refused. */
export function refuse(check: string, status: Refusal['status'] = 400): never {
  throw new SamlRefusal({ status, check });
}

/**
 * The root element of an XML document, or a refusal naming `what`. A document type declaration is refused before
 * anything parses the text: SAML needs none, and it is how entity expansion (billion laughs, external entities)
 * starts — for the platform's parser and for node-saml's (xmldom, xml2js) alike, which read the same text.
 */
export function parseXml(xml: string, what: string): Element {
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) refuse(`${what} contains a document type declaration`);
  let root: Element | null = null;
  try {
    root = new DOMParser({ onError: onErrorStopParsing }).parseFromString(xml, 'text/xml').documentElement;
  } catch {
    // A ParseError: what was wrong with it is the sender's business, not the page's.
  }
  if (!root) refuse(`${what} is not well-formed XML`);
  return root;
}

/** The element children of `parent` named `name` in `ns` (direct children only: SAML says where each one goes). */
export function children(parent: Element, ns: string, name: string): Element[] {
  return Array.from(parent.childNodes).filter(
    (n): n is Element => n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === name,
  );
}

/** The one child `name` of `parent`, undefined when there is none; several are refused with `several`. */
export function onlyChild(parent: Element, ns: string, name: string, several: string): Element | undefined {
  const found = children(parent, ns, name);
  if (found.length > 1) refuse(several);
  return found[0];
}

/** An element's text, whitespace around it dropped (SAML's values are simple content). */
export function textOf(el: Element | undefined): string | null {
  return el ? (el.textContent ?? '').trim() : null;
}

/** An attribute's value, or null when it is absent. */
export function attr(el: Element | undefined, name: string): string | null {
  return el?.hasAttribute(name) ? el.getAttribute(name) : null;
}

/** Whether elements under `root` nest more than `max` deep (walked without recursion: the input may be hostile). */
export function nestsDeeperThan(root: Element, max: number): boolean {
  const stack: [Element, number][] = [[root, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [el, depth] = item;
    if (depth > max) return true;
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) stack.push([n as Element, depth + 1]);
  }
  return false;
}
