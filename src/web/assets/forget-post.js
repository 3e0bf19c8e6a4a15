// On a page that answers a form's POST (a new API key shown once, a form shown again with its
// faults): reloading it, or coming back to it, would send the form again (a second key). Its history
// entry becomes a plain GET of the same address, so a reload shows the page afresh instead.
history.replaceState(null, '', location.href);
