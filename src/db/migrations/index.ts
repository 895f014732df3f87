import { Migration20261122000000_foundation } from './Migration20261122000000_foundation.js';
import { Migration20261122010000_identity } from './Migration20261122010000_identity.js';
import { Migration20261122020000_artifacts } from './Migration20261122020000_artifacts.js';
import { Migration20261122030000_search } from './Migration20261122030000_search.js';
import { Migration20261122040000_uploads } from './Migration20261122040000_uploads.js';
import { Migration20261122050000_search_recency } from './Migration20261122050000_search_recency.js';
import { Migration20261122060000_mcp } from './Migration20261122060000_mcp.js';
import { Migration20261122070000_sharing } from './Migration20261122070000_sharing.js';
import { Migration20261201000000_projects_feedback } from './Migration20261201000000_projects_feedback.js';
import { Migration20261201100000_outbox } from './Migration20261201100000_outbox.js';
import { Migration20261202000000_wiki } from './Migration20261202000000_wiki.js';
import { Migration20261203010000_job_error_code } from './Migration20261203010000_job_error_code.js';
import { Migration20261203020000_job_requester_view } from './Migration20261203020000_job_requester_view.js';
import { Migration20261203030000_job_admission } from './Migration20261203030000_job_admission.js';
import { Migration20261203100000_email_verification } from './Migration20261203100000_email_verification.js';
import { Migration20261203110000_web_sessions } from './Migration20261203110000_web_sessions.js';
import { Migration20261203120000_oauth_code_grant } from './Migration20261203120000_oauth_code_grant.js';
import { Migration20261204000000_search_signatures } from './Migration20261204000000_search_signatures.js';
import { Migration20261210000000_event_seq } from './Migration20261210000000_event_seq.js';
import { Migration20261210010000_webhooks } from './Migration20261210010000_webhooks.js';
import { Migration20261210020000_job_events } from './Migration20261210020000_job_events.js';
import { Migration20261220000000_signature_modality } from './Migration20261220000000_signature_modality.js';
import { Migration20261227100000_webhook_backlog } from './Migration20261227100000_webhook_backlog.js';
import { Migration20261225000000_semantic_graphs } from './Migration20261225000000_semantic_graphs.js';
import { Migration20261226100000_read_only_keys } from './Migration20261226100000_read_only_keys.js';
import { Migration20261227100000_oauth_client_metadata } from './Migration20261227100000_oauth_client_metadata.js';
import { Migration20261227000000_version_state_filenames } from './Migration20261227000000_version_state_filenames.js';
import { Migration20261228000000_runs } from './Migration20261228000000_runs.js';
import { Migration20261228000000_inline_blobs } from './Migration20261228000000_inline_blobs.js';
import { Migration20261229000000_share_labels } from './Migration20261229000000_share_labels.js';
import { Migration20261229100000_passage_vectors_written } from './Migration20261229100000_passage_vectors_written.js';
import { Migration20261230100000_passage_vector_once } from './Migration20261230100000_passage_vector_once.js';
import { Migration20261231000000_bm25 } from './Migration20261231000000_bm25.js';
import { Migration20270101000000_drive_names } from './Migration20270101000000_drive_names.js';
import { Migration20270102000000_leases } from './Migration20270102000000_leases.js';
import { Migration20270104000000_document_extraction } from './Migration20270104000000_document_extraction.js';
import { Migration20270105000000_memory_prefix } from './Migration20270105000000_memory_prefix.js';
import { Migration20270106000000_lease_gate } from './Migration20270106000000_lease_gate.js';
import { Migration20261231054000_blob_owner_index } from './Migration20261231054000_blob_owner_index.js';
import { Migration20261231153000_passages_awaiting_vectors } from './Migration20261231153000_passages_awaiting_vectors.js';
import { Migration20261231000000_history_checkpoints } from './Migration20261231000000_history_checkpoints.js';
import { Migration20261231200000_run_names } from './Migration20261231200000_run_names.js';

/** Migrations in the order they run. Append new ones at the end; never edit a landed one. */
export const migrations = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  { name: 'Migration20261122010000_identity', class: Migration20261122010000_identity },
  { name: 'Migration20261122020000_artifacts', class: Migration20261122020000_artifacts },
  { name: 'Migration20261122030000_search', class: Migration20261122030000_search },
  { name: 'Migration20261122040000_uploads', class: Migration20261122040000_uploads },
  { name: 'Migration20261122050000_search_recency', class: Migration20261122050000_search_recency },
  { name: 'Migration20261122060000_mcp', class: Migration20261122060000_mcp },
  { name: 'Migration20261122070000_sharing', class: Migration20261122070000_sharing },
  { name: 'Migration20261201000000_projects_feedback', class: Migration20261201000000_projects_feedback },
  { name: 'Migration20261201100000_outbox', class: Migration20261201100000_outbox },
  { name: 'Migration20261202000000_wiki', class: Migration20261202000000_wiki },
  { name: 'Migration20261203010000_job_error_code', class: Migration20261203010000_job_error_code },
  { name: 'Migration20261203020000_job_requester_view', class: Migration20261203020000_job_requester_view },
  { name: 'Migration20261203030000_job_admission', class: Migration20261203030000_job_admission },
  { name: 'Migration20261203100000_email_verification', class: Migration20261203100000_email_verification },
  { name: 'Migration20261203110000_web_sessions', class: Migration20261203110000_web_sessions },
  { name: 'Migration20261203120000_oauth_code_grant', class: Migration20261203120000_oauth_code_grant },
  { name: 'Migration20261204000000_search_signatures', class: Migration20261204000000_search_signatures },
  { name: 'Migration20261210000000_event_seq', class: Migration20261210000000_event_seq },
  { name: 'Migration20261210010000_webhooks', class: Migration20261210010000_webhooks },
  { name: 'Migration20261210020000_job_events', class: Migration20261210020000_job_events },
  { name: 'Migration20261220000000_signature_modality', class: Migration20261220000000_signature_modality },
  { name: 'Migration20261225000000_semantic_graphs', class: Migration20261225000000_semantic_graphs },
  { name: 'Migration20261226100000_read_only_keys', class: Migration20261226100000_read_only_keys },
  { name: 'Migration20261227100000_oauth_client_metadata', class: Migration20261227100000_oauth_client_metadata },
  { name: 'Migration20261227100000_webhook_backlog', class: Migration20261227100000_webhook_backlog },
  {
    name: 'Migration20261227000000_version_state_filenames',
    class: Migration20261227000000_version_state_filenames,
  },
  { name: 'Migration20261228000000_runs', class: Migration20261228000000_runs },
  { name: 'Migration20261228000000_inline_blobs', class: Migration20261228000000_inline_blobs },
  { name: 'Migration20261229000000_share_labels', class: Migration20261229000000_share_labels },
  { name: 'Migration20261229100000_passage_vectors_written', class: Migration20261229100000_passage_vectors_written },
  { name: 'Migration20261230100000_passage_vector_once', class: Migration20261230100000_passage_vector_once },
  { name: 'Migration20261231000000_bm25', class: Migration20261231000000_bm25 },
  { name: 'Migration20261231054000_blob_owner_index', class: Migration20261231054000_blob_owner_index },
  {
    name: 'Migration20261231153000_passages_awaiting_vectors',
    class: Migration20261231153000_passages_awaiting_vectors,
  },
  { name: 'Migration20261231000000_history_checkpoints', class: Migration20261231000000_history_checkpoints },
  { name: 'Migration20261231200000_run_names', class: Migration20261231200000_run_names },
  { name: 'Migration20270101000000_drive_names', class: Migration20270101000000_drive_names },
  { name: 'Migration20270102000000_leases', class: Migration20270102000000_leases },
  { name: 'Migration20270104000000_document_extraction', class: Migration20270104000000_document_extraction },
  { name: 'Migration20270105000000_memory_prefix', class: Migration20270105000000_memory_prefix },
  { name: 'Migration20270106000000_lease_gate', class: Migration20270106000000_lease_gate },
];
