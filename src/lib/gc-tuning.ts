import v8 from 'node:v8';

/**
 * Buffers (request bodies, S3 bodies, socket reads) live outside V8's heap, and by default every ~64 MB of them
 * allocated makes V8 run a full mark-compact of the whole heap. An upload of a megabyte allocates about that much once
 * more, so the API collected its ~80 MB heap every ~20 uploads: 40 % of its CPU per 1 MB PUT went to the collector.
 * With this flag, buffer memory counts toward the heap's global limit, which grows with what is live, as the heap's own
 * limit does (docs/decisions/write-path.md, "Then: the collector told": 11 → 2 full collections, 6.7 → 1.7 ms of
 * user CPU per request in a micro-benchmark). Imported first by the API's entry point, before much is allocated.
 */
v8.setFlagsFromString('--external-memory-accounted-in-global-limit');
