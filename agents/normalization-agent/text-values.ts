/** Characters RFC 5322 allows in an unquoted local part. */
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** A DNS label: letters, digits and inner hyphens. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Checks an address that is already trimmed and lower-cased: one `@`, a dot-atom local part of
 * at most 64 characters, and a domain of at least two labels ending in an alphabetic top-level
 * label. Quoted local parts and IP-literal domains are refused: real contact data does not use them.
 */
export function isValidEmail(address: string): boolean {
  if (address.length > 254) return false;
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.indexOf('@') !== at) return false;
  const local = address.slice(0, at);
  const labels = address.slice(at + 1).split('.');
  return (
    local.length <= 64 &&
    LOCAL_PART.test(local) &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    /^[a-z]{2,63}$/.test(labels[labels.length - 1]!)
  );
}

/**
 * Parses an absolute http or https URL with the WHATWG parser and answers its serialized form
 * (scheme and host lower-cased, default port dropped, "/" path added to a bare origin).
 */
export function normalizeUrl(text: string): { value: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'is not an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { problem: `uses ${url.protocol} but only http and https URLs are accepted` };
  }
  if (url.hostname === '') return { problem: 'has no host' };
  return { value: url.href };
}
