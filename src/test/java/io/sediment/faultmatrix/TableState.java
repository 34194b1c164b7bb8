package io.sediment.faultmatrix;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a rejected call must not change: the snapshot ids and every file under the table directory
 * (relative paths of regular files).
 */
record TableState(List<Long> snapshotIds, TreeSet<String> files) {

  static TableState of(MatrixTable t) {
    Path root = t.tableDir();
    try (Stream<Path> s = Files.walk(root)) {
      TreeSet<String> files =
          s.filter(Files::isRegularFile)
              .map(p -> root.relativize(p).toString())
              .collect(Collectors.toCollection(TreeSet::new));
      return new TableState(t.table().snapshotManager().listIds(), files);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** This state without files whose name contains any of {@code names}. */
  TableState without(Collection<String> names) {
    TreeSet<String> kept = new TreeSet<>();
    for (String f : files) {
      if (names.stream().noneMatch(f::contains)) {
        kept.add(f);
      }
    }
    return new TableState(snapshotIds, kept);
  }
}
