import { XMLParser, type X2jOptions } from 'fast-xml-parser';

/**
 * An XML parser that keeps every value a string (a test named "404" or a feed titled "2026" must
 * not become a number), attributes under `@_`, text under `#text`, values trimmed. The JUnit
 * reader and the feed parser add their own options (which elements are always lists, entities).
 */
export function stringValuedXmlParser(options: Partial<X2jOptions> = {}): XMLParser {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    textNodeName: '#text',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    ...options,
  });
}
