/** Improvements: placeholder until the page is built (issue 9). */
export function ImprovementsPage({ slug }: { slug: string }) {
  return <p>The Improvements page of {slug} is not built yet.</p>;
}
