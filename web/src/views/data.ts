// "Bring and take your notes": import a file from another app (followed until done)
// and download everything as an archive.
import type { Api } from "../api/client";
import { describeError } from "../api/errors";
import type { ImportJob } from "../api/types";
import { $, el } from "../dom";
import type { Store } from "../store";
import { plural } from "../text";

const JOB_POLL_MS = 1000;
const RUNNING = new Set(["queued", "running"]);
const LEADS: Readonly<Record<string, string>> = {
  queued: "Starting the import…", running: "Importing…", done: "Import finished:",
  cancelled: "Import cancelled:", failed: "The import failed:",
};

/** What the import's status line says: where it is and what it did so far. */
export function importLine(job: ImportJob): string {
  const running = RUNNING.has(job.status);
  const counts = [`${plural(job.imported, "note")} imported`];
  if (job.duplicates) counts.push(`${plural(job.duplicates, "note")} already here`);
  if (job.failed) counts.push(`${plural(job.failed, "file")} not imported`);
  return [LEADS[job.status] || job.status, running && !job.found ? "" : `${counts.join(", ")}.`, job.reason || ""]
    .filter(Boolean).join(" ");
}

export function dataView(store: Store, api: Api, refreshNotes: () => void): void {
  const importForm = $<HTMLFormElement>("import-form");
  const importStatus = $("import-status");
  const importProblems = $("import-problems");
  const progress = $<HTMLProgressElement>("import-progress");
  const cancel = $<HTMLButtonElement>("import-cancel");
  const importStart = $<HTMLButtonElement>("import-start");
  const exportStart = $<HTMLButtonElement>("export-start");
  const exportStatus = $("export-status");
  const link = $<HTMLAnchorElement>("export-link");
  let importId: string | null = null; // the import being followed
  let importTimer = 0;
  let exportTimer = 0;
  let exportUrl: string | null = null; // the downloaded archive's object URL, revoked at sign-out

  function showImport(job: ImportJob): void {
    const running = RUNNING.has(job.status);
    importStatus.textContent = importLine(job);
    progress.hidden = !running;
    if (job.found) progress.removeAttribute("value"); // indeterminate: the total is unknown until the end
    cancel.hidden = !running;
    importStart.disabled = running;
    importProblems.replaceChildren(...job.problems.map((p) => el("li", { text: `${p.file}: ${p.reason}` })));
  }

  async function pollImport(epoch: number): Promise<void> {
    if (!store.isCurrent(epoch) || !importId) return;
    try {
      const job = await api.getImport(importId);
      if (!store.isCurrent(epoch)) return;
      showImport(job);
      if (RUNNING.has(job.status)) {
        importTimer = window.setTimeout(() => void pollImport(epoch), JOB_POLL_MS);
      } else {
        importId = null;
        refreshNotes(); // the imported notes join the list, each at its own date
      }
    } catch (err) {
      if (store.isCurrent(epoch)) importStatus.textContent = `Could not follow the import. ${describeError(err)}`;
    }
  }

  importForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const file = $<HTMLInputElement>("import-file").files?.[0];
    if (!file) { importStatus.textContent = "Choose a file to import first."; return; }
    const { epoch } = store;
    importStart.disabled = true;
    importProblems.replaceChildren();
    importStatus.textContent = `Uploading ${file.name}…`;
    try {
      const job = await api.startImport(file);
      if (!store.isCurrent(epoch)) return;
      importId = job.id;
      showImport(job);
      importTimer = window.setTimeout(() => void pollImport(epoch), JOB_POLL_MS);
    } catch (err) {
      if (!store.isCurrent(epoch)) return;
      importStart.disabled = false;
      importStatus.textContent = `The import could not start. ${describeError(err)}`;
    }
  });

  cancel.addEventListener("click", async () => {
    if (!importId) return;
    const { epoch } = store;
    try {
      const job = await api.cancelImport(importId);
      if (store.isCurrent(epoch)) showImport(job);
    } catch (err) {
      if (store.isCurrent(epoch)) importStatus.textContent = `Could not cancel. ${describeError(err)}`;
    }
  });

  async function pollExport(epoch: number, id: string): Promise<void> {
    if (!store.isCurrent(epoch)) return;
    try {
      const job = await api.getExport(id);
      if (!store.isCurrent(epoch)) return;
      if (job.status !== "done" || !job.download) {
        exportTimer = window.setTimeout(() => void pollExport(epoch, id), JOB_POLL_MS);
        return;
      }
      const blob = await api.exportArchive(job.download);
      if (!store.isCurrent(epoch)) return;
      exportUrl = URL.createObjectURL(blob);
      link.href = exportUrl;
      link.download = `footnote-export-${(job.finishedAt || "").slice(0, 10)}.zip`;
      link.hidden = false;
      exportStatus.textContent = `Your archive is ready: ${plural(job.notes, "note")} and ${plural(job.conversations, "conversation")}.`;
      exportStart.disabled = false;
      link.focus();
    } catch (err) {
      if (!store.isCurrent(epoch)) return;
      exportStart.disabled = false;
      exportStatus.textContent = `The export failed. ${describeError(err)}`;
    }
  }

  exportStart.addEventListener("click", async () => {
    const { epoch } = store;
    exportStart.disabled = true;
    link.hidden = true;
    exportStatus.textContent = "Preparing your archive…";
    try {
      const job = await api.startExport();
      if (store.isCurrent(epoch)) void pollExport(epoch, job.id);
    } catch (err) {
      if (!store.isCurrent(epoch)) return;
      exportStart.disabled = false;
      exportStatus.textContent = `The export could not start. ${describeError(err)}`;
    }
  });

  // The card as a new user sees it: nothing in progress, nothing reported.
  store.onReset(() => {
    clearTimeout(importTimer);
    clearTimeout(exportTimer);
    importId = null;
    if (exportUrl) URL.revokeObjectURL(exportUrl);
    exportUrl = null;
    importStatus.textContent = "";
    exportStatus.textContent = "";
    importProblems.replaceChildren();
    progress.hidden = true;
    cancel.hidden = true;
    importStart.disabled = false;
    exportStart.disabled = false;
    link.hidden = true;
    link.removeAttribute("href");
    importForm.reset();
  });
}
