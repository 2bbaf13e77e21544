/** The label value every value outside a metric's known set is counted under. */
export const OTHER_LABEL = 'other';

/**
 * A label whose values are known when the service starts (the task types of the registry, the
 * configured models, the statuses of a vocabulary). A value outside the set is counted under
 * `other`, so nothing a client or a worker sends can grow the number of series: a series per
 * run id, key or actor would make every scrape larger than the last. Only the service itself
 * adds values later (`admit`: the task types a reload adds), never past a cap.
 */
export class BoundedLabel {
  private readonly known: Set<string>;

  constructor(values: Iterable<string>) {
    this.known = new Set([...values].filter((v) => v !== OTHER_LABEL));
  }

  /** The value as a label: itself when known, else `other`. */
  of(value: string | null | undefined): string {
    return value !== null && value !== undefined && this.known.has(value) ? value : OTHER_LABEL;
  }

  /**
   * Adds the values not known yet while the label holds fewer than `cap` values (`other` aside);
   * answers the values added. A value past the cap stays under `other`.
   */
  admit(values: Iterable<string>, cap: number): string[] {
    const added: string[] = [];
    for (const value of values) {
      if (value === OTHER_LABEL || this.known.has(value) || this.known.size >= cap) continue;
      this.known.add(value);
      added.push(value);
    }
    return added;
  }

  /** Every value the label can take, `other` last. */
  values(): string[] {
    return [...this.known, OTHER_LABEL];
  }

  /** The known values only (the series made visible at zero before anything happens). */
  knownValues(): string[] {
    return [...this.known];
  }
}
