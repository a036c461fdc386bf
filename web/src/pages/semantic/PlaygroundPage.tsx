/** Playground: placeholder until the page is built (issue 9). */
export function PlaygroundPage({ slug }: { slug: string }) {
  return <p>The Playground page of {slug} is not built yet.</p>;
}
