import type { RunEventData } from '../api/types.js';
import { StatusBadge } from '../components/common.js';
import { formatClock, formatTime } from './format.js';

/** The run's events as they stream in (stored first, then live). */
export function RunEvents({ events }: { events: RunEventData[] }) {
  if (events.length === 0) return <p className="empty">No events yet.</p>;
  return (
    <div className="table-scroll" role="region" aria-label="Run events" tabIndex={0}>
      <table className="events stack-on-phone">
        <caption className="visually-hidden">Run events</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">At</th>
            <th scope="col">Kind</th>
            <th scope="col">Event</th>
            <th scope="col">Status after</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.seq}>
              <td>{e.seq}</td>
              <td>
                <time dateTime={e.at} title={formatTime(e.at)}>
                  {formatClock(e.at)}
                </time>
              </td>
              <td>{e.kind}</td>
              <td>{e.name}</td>
              <td>
                <StatusBadge status={e.status} />
              </td>
              <td className="wrap full">{e.detail ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
