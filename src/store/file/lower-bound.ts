/** The first index in `from`..end of ascending `sorted` whose value is >= `value` (its length when none is). */
export function lowerBound(sorted: readonly number[], value: number, from = 0): number {
  let low = from;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}
