/**
 * Uploading a data file's bytes with progress (PUT /api/semantic/projects/:slug/blobs/:name through
 * XMLHttpRequest, whose upload events report progress; fetch does not). The server answers the SHA-256 and
 * size, so nothing is computed here. Used by the Editor's "Upload data file" and by Import.
 *
 * Source: spec/semantic-query-service.md § What the service does (2); docs/decisions.md D9 (progress for large data files).
 */
import type { StoredBlobView } from '../../../../../core/semantic/api/projects.ts';
import { ApiError, authHeaders, errorOf, projectPath } from '../../../api/client.ts';

/** Largest data file the API takes, bytes (20 MiB: bins/api/http-helpers.ts maxUploadBytes). */
export const maxDataFileBytes = 20 * 1024 * 1024;

/**
 * PUTs `file` as data file `name` of project `slug`, calling `onProgress(sentBytes, totalBytes)` as it goes.
 * @throws ApiError the API's error (e.g. 400 `invalid_argument` for a bad name, 413 `payload_too_large`),
 *   status 0 `unreachable` when no answer came, `upload_aborted` when `signal` aborted it
 */
export function uploadDataFile(slug: string, name: string, file: Blob, onProgress: (sent: number, total: number) => void, signal?: AbortSignal): Promise<StoredBlobView> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', projectPath(slug, `/blobs/${encodeURIComponent(name)}`));
    for (const [header, value] of Object.entries(authHeaders())) xhr.setRequestHeader(header, value);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(file.size, file.size);
        try { resolve(JSON.parse(xhr.responseText) as StoredBlobView); } catch { reject(new ApiError(xhr.status, 'invalid_answer', 'The server answered something that is not JSON. Try again.')); }
      } else {
        reject(errorOf(xhr.status, xhr.responseText, xhr.getResponseHeader('retry-after')));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'unreachable', 'The cairn server cannot be reached. Check your connection and try again.'));
    xhr.onabort = () => reject(new ApiError(0, 'upload_aborted', `The upload of ${name} was stopped.`));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

/** `bytes` as "512 B", "3.4 KiB", "12.0 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
