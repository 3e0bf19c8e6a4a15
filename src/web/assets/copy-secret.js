// A key or secret shown once (Settings → API, Settings → Webhooks): its Copy button puts it on the
// clipboard, and selects it too, so that where the clipboard is not open to the page (a plain-http
// address other than this machine's) Ctrl+C or ⌘C copies what is selected. Without this script the
// button stays hidden and the text can be selected by hand.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const source = document.getElementById(button.dataset.copy);
  const said = document.getElementById(`${button.dataset.copy}-said`);
  if (source === null || said === null) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    const range = document.createRange();
    range.selectNodeContents(source);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      said.textContent = button.dataset.copied;
    } catch {
      said.textContent = button.dataset.selected;
    }
  });
}
