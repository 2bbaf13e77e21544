/** A choice of a filter bar: the empty value first (`emptyLabel`: what no choice means), then each option. */
export function FilterSelect(props: {
  id: string;
  label: string;
  value: string;
  emptyLabel: string;
  /** Values shown as they are, or value/label pairs. */
  options: ReadonlyArray<string | { value: string; label: string }>;
  onChange: (value: string) => void;
}) {
  const { id, label, value, emptyLabel, options, onChange } = props;
  return (
    <div className="filter-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{emptyLabel}</option>
        {options.map((option) => {
          const { value: v, label: text } = typeof option === 'string' ? { value: option, label: option } : option;
          return (
            <option key={v} value={v}>
              {text}
            </option>
          );
        })}
      </select>
    </div>
  );
}
