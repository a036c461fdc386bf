/** Sessions: placeholder until the page is built (issue 10). */
export function SessionsPage({ id }: { id?: string }) {
  return <p>The sessions page{id ? ` of ${id}` : ''} is not built yet.</p>;
}
