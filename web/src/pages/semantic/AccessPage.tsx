/** Access: placeholder until the page is built (issue 9). */
export function AccessPage({ slug }: { slug: string }) {
  return <p>The Access page of {slug} is not built yet.</p>;
}
