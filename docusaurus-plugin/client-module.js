// Runs in the browser after every client-side navigation: re-decides whether the new page shows
// the widget (the widget itself lives outside React's root, so it and its conversation persist).
export function onRouteDidUpdate({location}) {
  if (typeof window !== 'undefined' && typeof window.__bookChatRoute === 'function') {
    window.__bookChatRoute(location.pathname);
  }
}
