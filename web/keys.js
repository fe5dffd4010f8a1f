// Keyboard shortcuts. Alt+letter works everywhere (also while typing);
// the single keys (n, /, j, k, ?) only when the focus is not in a text
// field, so they never eat what is typed. ev.code, not ev.key: Alt+N on a
// Mac types "˜".

const TEXT_INPUT = /^(textarea|select)$/i;

function typing(target) {
  if (!target || !target.tagName) return false;
  if (target.isContentEditable || TEXT_INPUT.test(target.tagName)) return true;
  return target.tagName === 'INPUT' && !/^(button|checkbox|radio|submit|reset)$/i.test(target.type);
}

/**
 * installShortcuts binds the page's shortcuts.
 * @param {{newTask: () => void, focusPrompt: () => void, stop: () => void,
 *          nextTask: (step: number) => void, help: () => void}} act
 */
export function installShortcuts(act) {
  document.addEventListener('keydown', (ev) => {
    if (ev.defaultPrevented || ev.isComposing || ev.ctrlKey || ev.metaKey) return;
    if (document.querySelector('dialog[open]')) return; // a dialog has the keyboard
    let run = null;
    if (ev.altKey && !ev.shiftKey) {
      run = {
        KeyN: act.newTask, KeyP: act.focusPrompt, KeyS: act.stop,
        KeyJ: () => act.nextTask(1), KeyK: () => act.nextTask(-1),
      }[ev.code];
    } else if (!ev.altKey && !typing(ev.target)) {
      run = {
        n: act.newTask, '/': act.focusPrompt, j: () => act.nextTask(1), k: () => act.nextTask(-1), '?': act.help,
      }[ev.key];
    }
    if (!run) return;
    ev.preventDefault();
    run();
  });
}
