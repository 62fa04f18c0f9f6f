export function App() {
  return (
    <main className="welcome">
      <div className="mark" aria-hidden="true">
        <span />
        <span />
        <span />
        <span />
      </div>
      <h1>Context Workbench</h1>
      <p>Run, browse and compact your agents&apos; contexts.</p>
    </main>
  );
}
