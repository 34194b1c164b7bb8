package io.sediment.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;

/**
 * {@link TablePaths} builds each path with one URI parse; every path must be exactly the one
 * Flink's own child resolution gives ({@code new Path(parent, child)}), which is what tables
 * written before were laid out by and what listings return. Checked on generated roots, partition
 * values and file names.
 */
class TablePathsTest {

  private static final String[] ROOTS = {
    "/tmp/wh/db.db/t",
    "/tmp/wh/db.db/t/",
    "file:/tmp/wh/db.db/t",
    "file:///tmp/wh/db.db/t",
    "s3://bucket/wh/db.db/t",
    "s3://bucket/t",
    "hdfs://namenode:8020/user/flink/wh/db.db/t",
    "faulty:/tmp/x/db.db/t",
    "/tmp/with space/db.db/t",
    "/tmp/caf\u00e9/db.db/na\u00efve",
    "/tmp/per%25cent/t",
    "relative/wh/db.db/t",
  };

  private static final String VALUE_CHARS = "ab Z09-_.:/=%#?*'\"\\{[]^~\u00e9\u4e2d\t";

  @Test
  void everyPathIsWhatFlinkResolvesTheChildTo() {
    Random random = new Random(7);
    int checked = 0;
    for (String rootString : ROOTS) {
      Path root = new Path(rootString);
      TablePaths paths = new TablePaths(root);
      Path expectedRoot = new Path(root.toString());
      assertThat(paths.root()).isEqualTo(expectedRoot);
      assertSame(paths.schemaDir(), new Path(expectedRoot, "schema"));
      assertSame(paths.snapshotDir(), new Path(expectedRoot, "snapshot"));
      assertSame(paths.manifestDir(), new Path(expectedRoot, "manifest"));
      assertSame(paths.indexDir(), new Path(expectedRoot, "index"));
      assertSame(paths.consumerDir(), new Path(expectedRoot, "consumer"));
      assertSame(paths.markersDir(), new Path(expectedRoot, TablePaths.MARKERS_DIR));
      for (int i = 0; i < 50; i++) {
        long id = random.nextInt(1_000_000);
        String name = "manifest-" + UUID.randomUUID();
        assertSame(paths.schema(id), new Path(new Path(expectedRoot, "schema"), "schema-" + id));
        assertSame(
            paths.snapshot(id), new Path(new Path(expectedRoot, "snapshot"), "snapshot-" + id));
        assertSame(paths.expiryRecord(), new Path(new Path(expectedRoot, "snapshot"), "EXPIRING"));
        assertSame(paths.manifest(name), new Path(new Path(expectedRoot, "manifest"), name));
        assertSame(paths.index(name), new Path(new Path(expectedRoot, "index"), name));
        String consumer = TablePaths.escape(randomValue(random));
        assertSame(
            paths.consumer(consumer),
            new Path(new Path(expectedRoot, "consumer"), "consumer-" + consumer));

        String partition = randomPartitionPath(random);
        int bucket = random.nextInt(64);
        String rel = partition.isEmpty() ? "bucket-" + bucket : partition + "/bucket-" + bucket;
        Path bucketDir = new Path(expectedRoot, rel);
        assertSame(paths.bucketDir(partition, bucket), bucketDir);
        String file = "data-" + UUID.randomUUID() + "-" + i + ".parquet";
        assertSame(paths.dataFile(partition, bucket, file), new Path(bucketDir, file));
        checked++;
      }
    }
    assertThat(checked).isEqualTo(ROOTS.length * 50);
  }

  private static void assertSame(Path actual, Path expected) {
    assertThat(actual).isEqualTo(expected);
    assertThat(actual.toString()).isEqualTo(expected.toString());
    assertThat(actual.toUri()).isEqualTo(expected.toUri());
  }

  private static String randomPartitionPath(Random random) {
    int keys = random.nextInt(3);
    List<String> names = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      names.add("k" + k + (random.nextBoolean() ? "" : randomValue(random)));
      values.add(random.nextInt(6) == 0 ? null : randomValue(random));
    }
    return TablePaths.partitionPath(names, values);
  }

  private static String randomValue(Random random) {
    StringBuilder sb = new StringBuilder();
    int length = 1 + random.nextInt(8);
    for (int i = 0; i < length; i++) {
      sb.append(VALUE_CHARS.charAt(random.nextInt(VALUE_CHARS.length())));
    }
    return sb.toString();
  }
}
