/**
 * The output markers: the files a Flink job keeps beside a table, under {@code
 * <table>/.markers/<commit-user>/}, so that what it wrote and did not commit can always be found
 * and deleted, and so that orphan removal leaves alone what it is still writing. Every read and
 * write of these files goes through this package (docs/spec.md, section 2.3):
 *
 * <ul>
 *   <li>{@link OutputMarkers}: a compaction job's rewrite operator writes {@code marker-<output>}
 *       before creating each output (data file or deletion-vector file); its committer deletes the
 *       markers of a finished window's outputs, and at a (re)start deletes every marked output no
 *       retained snapshot references.
 *   <li>{@link WriterMarkers}: a Flink SQL writer writes {@code write-after-<B>/marker-<output>}, B
 *       the last checkpoint barrier it passed; its committer deletes the markers of what it
 *       published, and the outputs under B &lt; M that no snapshot references once checkpoint M of
 *       its attempt completed (safe while the writers write).
 *   <li>{@link ReleaseRecords}: the compaction committer writes {@code released/release-<window>-*}
 *       after a window was committed or aborted; the task source takes them to plan those files
 *       again.
 *   <li>{@link MarkedOutputs}: what {@code remove_orphan_files} sees: the outputs live jobs'
 *       markers protect, and the bookkeeping of stale jobs it may delete.
 * </ul>
 *
 * <p>The invariant all of them keep: an output of such a job that no snapshot references has a
 * marker (the marker is written before the output is created, and deleted only after the output was
 * committed or deleted). {@link MarkerLayout} is the layout of the files.
 */
package io.sediment.marker;
