package io.sediment.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sort of a sort compaction's range: every row once, in key order, rows of equal keys in the
 * order they were added, whatever the buffer size (none to many spills), and no spill file left.
 */
class ExternalRowSorterTest {

  @TempDir Path dir;

  private static final RowType TYPE = RowType.of(new BigIntType(), new VarCharType(100));

  @Test
  void sortsStablyInAnyBufferSizeAndLeavesNoSpillFile() throws Exception {
    RowDataSerializer serializer = new RowDataSerializer(TYPE);
    for (int seed = 0; seed < 30; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      int rows = r.nextInt(3000);
      long buffer = 1 + r.nextLong(200_000);
      record Added(byte[] key, long seq) {}
      List<Added> added = new ArrayList<>();
      List<Long> out = new ArrayList<>();
      File spills = dir.resolve("s" + seed).toFile();
      try (ExternalRowSorter sorter = new ExternalRowSorter(2, buffer, spills)) {
        for (long i = 0; i < rows; i++) {
          // few distinct keys of several lengths: many ties, prefixes
          byte[] key = new byte[r.nextInt(3)];
          for (int k = 0; k < key.length; k++) {
            key[k] = (byte) (r.nextInt(3) * 120);
          }
          added.add(new Added(key, i));
          BinaryRowData row =
              serializer.toBinaryRow(GenericRowData.of(i, StringData.fromString("v" + i))).copy();
          sorter.add(key, row);
        }
        sorter.sorted(row -> out.add(row.getLong(0)));
        if (buffer < 1000 && rows > 100) {
          assertThat(sorter.spillCount()).as("seed %s spilled", seed).isPositive();
        }
        assertThat(sorter.spillFiles())
            .as("seed %s: spill files merged beyond the fan-in", seed)
            .isLessThan(ExternalRowSorter.MAX_FAN_IN);
      }
      added.sort(
          Comparator.<Added, byte[]>comparing(a -> a.key, java.util.Arrays::compareUnsigned)
              .thenComparingLong(a -> a.seq));
      assertThat(out)
          .as("seed %s", seed)
          .containsExactlyElementsOf(added.stream().map(Added::seq).toList());
      assertThat(spills.exists() ? spills.list() : new String[0]).as("spill files left").isEmpty();
    }
  }

  @Test
  void aFailureWhileMergingStillDeletesTheSpills() throws Exception {
    RowDataSerializer serializer = new RowDataSerializer(TYPE);
    File spills = dir.resolve("s").toFile();
    try (ExternalRowSorter sorter = new ExternalRowSorter(2, 1, spills)) {
      for (long i = 0; i < 10; i++) {
        sorter.add(
            new byte[] {(byte) i},
            serializer.toBinaryRow(GenericRowData.of(i, StringData.fromString("v"))).copy());
      }
      assertThat(spills.list()).hasSize(10);
      assertThat(sorter.spillCount()).isEqualTo(10);
      assertThatThrownBy(
              () ->
                  sorter.sorted(
                      row -> {
                        throw new IOException("disk full");
                      }))
          .hasMessage("disk full");
    }
    assertThat(spills.list()).isEmpty();
  }
}
