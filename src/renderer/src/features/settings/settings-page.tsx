export function SettingsPage() {
  return <section className="panel" />;
}
