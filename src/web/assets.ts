import { Router } from 'express';

/**
 * The pages' only script, first-party and static (CSP `script-src 'self'` on the pages that load it, `'none'`
 * elsewhere): drag-and-drop onto a folder page fills the Upload form's file input and submits it, the same
 * CSRF-checked form a person uses with scripts off; and the Copy buttons (src/web/copy.ts) copy their box's text.
 * No inline script, no handler attributes, nothing from uploads.
 */
export const DROP_UPLOAD_PATH = '/assets/drop-upload.js';

const DROP_UPLOAD = `'use strict';
(function () {
  Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (b) {
    var box = document.getElementById(b.getAttribute('data-copy'));
    if (!box || !navigator.clipboard) return;
    b.hidden = false;
    b.addEventListener('click', function () {
      navigator.clipboard.writeText(box.textContent.trim()).then(function () {
        b.textContent = 'Copied';
        setTimeout(function () { b.textContent = 'Copy'; }, 2000);
      });
    });
  });
})();
(function () {
  var form = document.querySelector('form[data-drop-upload]');
  var zone = document.querySelector('main');
  if (!form || !zone) return;
  var input = form.querySelector('input[type=file]');
  var hint = document.querySelector('[data-drop-hint]');
  if (hint) hint.hidden = false;
  var depth = 0;
  function hasFiles(e) {
    return !!e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types || [], 'Files') >= 0;
  }
  zone.addEventListener('dragenter', function (e) {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth += 1;
    zone.classList.add('dropping');
  });
  zone.addEventListener('dragover', function (e) {
    if (hasFiles(e)) e.preventDefault();
  });
  zone.addEventListener('dragleave', function () {
    depth = Math.max(0, depth - 1);
    if (!depth) zone.classList.remove('dropping');
  });
  zone.addEventListener('drop', function (e) {
    if (!e.dataTransfer || !e.dataTransfer.files.length) return;
    e.preventDefault();
    zone.classList.remove('dropping');
    input.files = e.dataTransfer.files;
    if (form.requestSubmit) form.requestSubmit();
    else form.submit();
  });
})();
`;

export function assetsRouter(): Router {
  const router = Router();
  router.get(DROP_UPLOAD_PATH, (_req, res) => {
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.send(DROP_UPLOAD);
  });
  return router;
}
