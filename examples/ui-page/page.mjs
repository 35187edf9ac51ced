// The page's own code: a file, so a strict Content-Security-Policy lets it run.
import 'authgate/ui';

document.addEventListener('authgate-signed-in', (event) => {
  document.title = `Signed in as ${event.detail.name}`;
});
document.addEventListener('authgate-signed-out', () => {
  document.title = 'authgate screens on a plain page';
});
