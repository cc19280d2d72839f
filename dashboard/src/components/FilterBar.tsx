import type { ReactNode } from 'react';
import { transportLabel } from '../data/style';
import { rateLabel, users, type Resolved } from '../data/transforms';
import type { Filters } from '../data/urlState';

export type FilterName = 'operation' | 'pageSize' | 'concurrency' | 'tool' | 'model' | 'rate' | 'temperature' | 'tls';

interface Props {
  resolved: Resolved;
  show: FilterName[];
  onChange: (patch: Partial<Filters>) => void;
  /** More controls at the end of the bar. */
  children?: ReactNode;
}

function Select({ label, name, value, options, onChange }: {
  label: string;
  name: string;
  value: string;
  options: { value: string; label: string }[];
  onChange: (v: string) => void;
}) {
  return (
    <label className="filter">
      <span>{label}</span>
      <select name={name} value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>{o.label}</option>
        ))}
      </select>
    </label>
  );
}

/** Filters for operation, page size, concurrency, tool (and load model, target rate, temperature where used). */
export function FilterBar({ resolved, show, onChange, children }: Props) {
  const o = resolved.options;
  const on = (f: FilterName) => show.includes(f);
  return (
    <div className="filter-bar" role="group" aria-label="Filters">
      {on('operation') && (
        <Select label="Operation" name="op" value={resolved.operation}
          options={o.operations.map((v) => ({ value: v, label: v }))}
          onChange={(v) => onChange({ operation: v as Filters['operation'], pageSize: null, concurrency: null, rate: null })} />
      )}
      {on('pageSize') && resolved.pageSize !== null && (
        <Select label="Page size" name="n" value={String(resolved.pageSize)}
          options={o.pageSizes.map((v) => ({ value: String(v), label: `${v} rows` }))}
          onChange={(v) => onChange({ pageSize: Number(v) })} />
      )}
      {on('concurrency') && resolved.concurrency !== null && (
        <Select label="Concurrency" name="c" value={String(resolved.concurrency)}
          options={o.concurrencies.map((v) => ({ value: String(v), label: users(v) }))}
          onChange={(v) => onChange({ concurrency: Number(v) })} />
      )}
      {on('tool') && (
        <Select label="Tool" name="tool" value={resolved.tool}
          options={[...o.tools.map((v, i) => ({ value: v, label: o.toolLabels[i] })), { value: 'all', label: 'all tools' }]}
          onChange={(v) => onChange({ tool: v as Filters['tool'] })} />
      )}
      {on('model') && o.models.length > 1 && (
        <Select label="Load model" name="model" value={resolved.model}
          options={o.models.map((v) => ({ value: v, label: v === 'closed' ? 'closed (fixed users)' : 'open (arrival rate)' }))}
          onChange={(v) => onChange({ model: v as Filters['model'], concurrency: null, rate: null })} />
      )}
      {on('rate') && resolved.rate !== null && (
        <Select label="Target rate" name="rate" value={String(resolved.rate)}
          options={o.rates.map((v) => ({ value: String(v), label: rateLabel(v) }))}
          onChange={(v) => onChange({ rate: Number(v) })} />
      )}
      {on('tls') && o.transports.length > 1 && (
        <Select label="Transport" name="tls" value={resolved.tls ? 'tls' : 'plain'}
          options={o.transports.map((v) => ({ value: v ? 'tls' : 'plain', label: transportLabel(v) }))}
          onChange={(v) => onChange({ tls: v === 'tls', pageSize: null, concurrency: null, rate: null })} />
      )}
      {on('temperature') && (
        <Select label="Cache temperature" name="temp" value={resolved.temperature}
          options={[{ value: 'warm', label: 'warm' }, { value: 'cold', label: 'cold' }]}
          onChange={(v) => onChange({ temperature: v as Filters['temperature'] })} />
      )}
      {children}
    </div>
  );
}
