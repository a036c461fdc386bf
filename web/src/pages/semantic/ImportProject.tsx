/** Import a project directory: placeholder until the import is built (issue 9). */
export function ImportProject({ onDone }: { onDone: () => void }) {
  return <div className="card"><p>Import is not built yet.</p><button type="button" className="btn" onClick={onDone}>Close</button></div>;
}
