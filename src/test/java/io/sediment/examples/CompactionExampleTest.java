package io.sediment.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactionExampleTest {

  @TempDir Path dir;

  @Test
  void theDocumentedExampleCompactsOnePartition() throws Exception {
    CompactResult result = CompactionExample.run(dir.toString());
    assertThat(result.tasks()).isEqualTo(1);
    assertThat(result.filesBefore()).isEqualTo(10);
    assertThat(result.filesAfter()).isEqualTo(1);
    Snapshot s =
        new FileSystemCatalog(dir.toString())
            .getTable("shop.orders")
            .latestSnapshot()
            .orElseThrow();
    assertThat(s.commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(s.commitUser()).startsWith("nightly-compact-");
    assertThat(s.totalRecordCount()).isEqualTo(1000);
  }
}
