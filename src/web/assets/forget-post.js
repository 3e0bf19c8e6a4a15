// On a page that answers a form's POST (a new API key shown once, a form shown again with its
// faults): reloading it, or coming back to it, would send the form again (a second key). Its history
// entry becomes a plain GET of the page's own address (its canonical link: the form's address may
// have no page, as POST /surveys/{id}/rules), so a reload shows the page afresh instead.
const page = document.querySelector('link[rel="canonical"]');
history.replaceState(null, '', page === null ? location.href : page.href);
// A form shown again with its faults marks its first faulty field autofocus; the browser skips that
// once the address has a fragment (#review-…, set just above), so the focus is given here, once the
// page has loaded (a focus given while the page is still being shown does not stay).
addEventListener('load', () => document.querySelector('[autofocus]')?.focus());
