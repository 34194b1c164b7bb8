package io.sediment.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Row groups left out by their statistics: on a file sorted by {@code id} with many row groups, a
 * generated filter reads exactly the rows it reads without pruning, and a selective one reads few
 * row groups; unknown statistics (nulls only, types not converted) never prune.
 */
class RowGroupPruningTest {

  @TempDir Path dir;

  private static final RowType TYPE =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.BIGINT()),
                  DataTypes.FIELD("name", DataTypes.STRING()),
                  DataTypes.FIELD("amount", DataTypes.DOUBLE()),
                  DataTypes.FIELD("day", DataTypes.INT()),
                  DataTypes.FIELD("price", DataTypes.DECIMAL(20, 2)))
              .getLogicalType();

  @Test
  void aSortedFileReadsOnlyTheRowGroupsAFilterCanMatchAndTheSameRows() throws Exception {
    org.apache.flink.core.fs.Path path =
        new org.apache.flink.core.fs.Path(dir.resolve("f.parquet").toUri());
    SplittableRandom r = new SplittableRandom(3);
    FileFormatOptions options = new FileFormatOptions("zstd", 1, 16 * 1024, 4 * 1024, true);
    int rows = 40_000;
    try (DataFileWriter w = DataFileWriter.create(path, TYPE, options)) {
      for (long id = 0; id < rows; id++) {
        w.write(
            GenericRowData.of(
                id,
                StringData.fromString(String.format("n%06d", id)),
                r.nextInt(10) == 0 ? null : r.nextDouble(0, 100),
                id % 7 == 0 ? null : (int) (id / 100),
                null));
      }
      w.finish();
    }
    int groups;
    try (DataFileReader all = DataFileReader.open(path, TYPE, null, -1, rows)) {
      groups = all.footer().getBlocks().size();
    }
    assertThat(groups).as("row groups written").isGreaterThan(10);

    PredicateBuilder pb = new PredicateBuilder(TYPE);
    List<Predicate> filters = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      long from = r.nextLong(rows);
      filters.add(
          switch (i % 6) {
            case 0 -> pb.between("id", from, from + r.nextInt(2000));
            case 1 -> pb.equalText("name", String.format("n%06d", from));
            case 2 -> PredicateBuilder.and(pb.lessThan("id", from), pb.greaterThan("amount", 90.0));
            case 3 -> pb.greaterOrEqual("day", (int) (from / 100));
            case 4 -> PredicateBuilder.or(pb.isNull("price"), pb.equal("id", from));
            default -> pb.in("id", List.of(from, from / 2, 17L));
          });
    }
    for (Predicate filter : filters) {
      List<Long> pruned = ids(path, rows, filter, filter);
      List<Long> unpruned = ids(path, rows, filter, null);
      assertThat(pruned).as(filter.toString()).isEqualTo(unpruned);
    }
    Predicate narrow = pb.between("id", 20_000L, 20_100L);
    int kept =
        RowGroupPruning.prune(
                DataFileReader.open(path, TYPE, null, -1, rows).footer(), TYPE, narrow)
            .getBlocks()
            .size();
    assertThat(kept).as("row groups read of %s", groups).isBetween(1, 2);
    // an all-null column prunes by its null count, whatever its type
    assertThat(
            RowGroupPruning.prune(
                    DataFileReader.open(path, TYPE, null, -1, rows).footer(),
                    TYPE,
                    pb.isNotNull("price"))
                .getBlocks())
        .as("price is all null, so its statistics say so")
        .isEmpty();
  }

  private static List<Long> ids(
      org.apache.flink.core.fs.Path path, long rows, Predicate filter, Predicate rowGroups)
      throws Exception {
    List<Long> out = new ArrayList<>();
    try (DataFileReader reader = DataFileReader.open(path, TYPE, null, -1, rows, rowGroups)) {
      RowData row;
      while ((row = reader.next()) != null) {
        if (filter.test(row)) {
          out.add(row.getLong(0));
        }
      }
    }
    return out;
  }
}
