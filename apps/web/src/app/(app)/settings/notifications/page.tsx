import { NotificationSettings } from "./notification-settings";

export default function NotificationsPage() {
  return (
    <main className="page wide">
      <h1>Notifications</h1>
      <NotificationSettings />
    </main>
  );
}
