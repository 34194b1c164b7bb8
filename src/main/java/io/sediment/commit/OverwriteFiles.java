package io.sediment.commit;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.ManifestEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What an overwrite adds: the messages' files with the writer's own compactions folded in. The
 * writer of an overwrite ignores the files the table holds ({@code
 * TableWrite.withIgnorePreviousFiles}), so a primary-key table's compactions in it (the stop
 * trigger; a deletion-vector or lookup table moving level 0 up) take only its own new files: the
 * snapshot adds what those compactions left, with the deletion vectors of those files, and never a
 * level-0 file that a deletion-vector table's readers would not see. A compaction of a file the
 * overwrite does not add, or a deletion vector of one (a writer that read the table's files), is
 * refused: it merged the table's rows with the new ones (a first-row table kept an old row).
 */
record OverwriteFiles(
    List<ManifestEntry> adds,
    List<CommitMessage> vectorMessages,
    List<ManifestEntry> unreferenced) {

  static OverwriteFiles of(List<CommitMessage> messages) {
    Set<String> written = new HashSet<>();
    Set<String> inputs = new HashSet<>();
    for (CommitMessage m : messages) {
      m.newFiles().forEach(f -> written.add(f.fileName()));
      m.compactAfter().forEach(f -> written.add(f.fileName()));
      m.compactBefore().forEach(f -> inputs.add(f.fileName()));
    }
    List<ManifestEntry> adds = new ArrayList<>();
    List<ManifestEntry> unreferenced = new ArrayList<>();
    List<CommitMessage> vectorMessages = new ArrayList<>();
    for (CommitMessage m : messages) {
      List<String> touched = new ArrayList<>();
      m.compactBefore().forEach(f -> touched.add(f.fileName()));
      m.deletionFiles().forEach(d -> touched.add(d.dataFile()));
      for (String name : touched) {
        if (!written.contains(name)) {
          throw new IllegalArgumentException(
              "An overwrite compacts or marks rows deleted in "
                  + name
                  + ", a file it does not write: its writer must ignore the table's files"
                  + " (TableWrite.withIgnorePreviousFiles)");
        }
      }
      for (List<DataFileMeta> files : List.of(m.newFiles(), m.compactAfter())) {
        for (DataFileMeta f : files) {
          boolean kept = !inputs.contains(f.fileName());
          (kept ? adds : unreferenced).add(m.entry(FileKind.ADD, f));
        }
      }
      // an overwrite is not a change a stream reads: changelog written for it is dropped
      m.changelogFiles().forEach(f -> unreferenced.add(m.entry(FileKind.ADD, f)));
      List<DeletionFile> vectors = new ArrayList<>();
      for (DeletionFile d : m.deletionFiles()) {
        if (!inputs.contains(d.dataFile())) {
          vectors.add(d);
        }
      }
      if (!vectors.isEmpty()) {
        vectorMessages.add(
            new CommitMessage(
                m.partition(),
                m.bucket(),
                m.totalBuckets(),
                List.of(),
                List.of(),
                List.of(),
                vectors,
                m.baseSnapshotId()));
      }
    }
    return new OverwriteFiles(adds, vectorMessages, unreferenced);
  }
}
