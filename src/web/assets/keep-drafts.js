// Review replies typed in the inbox are kept in this browser until they are saved: a session that
// ended (signed out in another tab, the idle time-out, a browser restarted overnight) answers Send
// reply with the sign-in page, and the text would be lost. Each reply field's text is stored as it is
// typed, per user and review; the next inbox page that shows that review's field with its own
// (server-given) text puts the stored text back and says so, unless the stored text is what the
// server now shows (the reply was saved: forgotten). Kept 7 days. Without this script nothing is stored.
const form = document.querySelector('form.answers[data-drafts-of]');
if (form !== null) {
  const prefix = `repute-draft:${form.dataset.draftsOf}:`;
  const WEEK_MS = 7 * 24 * 3600 * 1000;
  const read = (key) => {
    try {
      const saved = JSON.parse(localStorage.getItem(key) ?? 'null');
      return saved !== null && typeof saved.text === 'string' && Date.now() - saved.at < WEEK_MS ? saved.text : null;
    } catch {
      return null;
    }
  };
  for (const field of form.querySelectorAll('textarea[name^="reply-"]')) {
    const key = prefix + field.name;
    const saved = read(key);
    if (saved === null || saved === field.defaultValue) {
      localStorage.removeItem(key);
    } else if (field.value === field.defaultValue) {
      field.value = saved;
      const note = document.createElement('p');
      note.className = 'muted';
      note.setAttribute('role', 'status');
      note.textContent = form.dataset.draftRestored;
      field.after(note);
    }
    field.addEventListener('input', () => {
      if (field.value === field.defaultValue) localStorage.removeItem(key);
      else localStorage.setItem(key, JSON.stringify({ text: field.value, at: Date.now() }));
    });
  }
}
