export function CompactionPage({ uuid, id }: { uuid: string; id: number }) {
  return (
    <section className="panel">
      {uuid} #{id}
    </section>
  );
}
