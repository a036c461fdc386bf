/** Monitoring: placeholder until the page is built (issue 9). */
export function MonitoringPage({ slug }: { slug: string }) {
  return <p>The Monitoring page of {slug} is not built yet.</p>;
}
