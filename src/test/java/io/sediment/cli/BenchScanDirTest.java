package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.format.DataFileWriter;
import io.sediment.format.FileFormatOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sediment bench W4 --scan-dir}: directories of Parquet files from any writer scanned with
 * both readers, the directories taking turns; rows and bytes counted from the real files.
 */
class BenchScanDirTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final RowType TYPE =
      RowType.of(
          new LogicalType[] {
            new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH), new TimestampType(3)
          },
          new String[] {"id", "note", "ts"});

  @TempDir Path dir;

  @Test
  void scansSedimentsAndAnotherWritersFilesWithBothReaders() throws Exception {
    Path sediment = Files.createDirectories(dir.resolve("sediment"));
    writeSediment(sediment.resolve("a.parquet"), 0, 3000);
    // a nested directory and a file that is not Parquet: the files under the directory count
    writeSediment(
        Files.createDirectories(sediment.resolve("bucket-0")).resolve("b.parquet"), 3000, 2000);
    Files.writeString(sediment.resolve("README.txt"), "not a data file");
    Path other = Files.createDirectories(dir.resolve("other"));
    writeOtherWriter(other.resolve("part-0.parquet"), 0, 5000);

    SedimentCliTest.Result r =
        SedimentCliTest.run(
            "bench",
            "W4",
            "--scan-dir",
            sediment.toString(),
            "--scan-dir",
            other.toString(),
            "--rounds",
            "3",
            "--json");

    assertThat(r.code()).as(r.err()).isZero();
    String[] lines = r.out().trim().split("\n");
    assertThat(lines).hasSize(2);
    long sumOfIds = 5000L * 4999 / 2;
    JsonNode s = JSON.readTree(lines[0]);
    assertThat(s.get("verified").asBoolean()).as(s.toString()).isTrue();
    assertThat(s.get("mode").asText()).isEqualTo("scan-dir");
    assertThat(s.get("dir").asText()).isEqualTo(sediment.toString());
    assertThat(s.get("rows").asLong()).isEqualTo(5000);
    assertThat(s.get("filesIn").asLong()).isEqualTo(2);
    assertThat(s.get("inputBytes").asLong())
        .isEqualTo(
            Files.size(sediment.resolve("a.parquet"))
                + Files.size(sediment.resolve("bucket-0/b.parquet")));
    assertThat(s.get("rowGroupsPerFile").asText()).isEqualTo("[1, 1]");
    assertThat(s.get("columnChecksum").asLong()).isEqualTo(sumOfIds);
    assertThat(s.get("rounds").asInt()).isEqualTo(3);
    assertThat(s.get("parquetMrFullRoundSeconds").asText().split(",")).hasSize(3);

    JsonNode o = JSON.readTree(lines[1]);
    assertThat(o.get("verified").asBoolean()).as(o.toString()).isTrue();
    assertThat(o.get("dir").asText()).isEqualTo(other.toString());
    assertThat(o.get("rows").asLong()).isEqualTo(5000);
    assertThat(o.get("filesIn").asLong()).isEqualTo(1);
    assertThat(o.get("inputBytes").asLong()).isEqualTo(Files.size(other.resolve("part-0.parquet")));
    assertThat(o.get("columnChecksum").asLong()).isEqualTo(sumOfIds);
  }

  @Test
  void theOneColumnScanReadsTheNamedColumn() throws Exception {
    writeSediment(dir.resolve("a.parquet"), 0, 100);
    SedimentCliTest.Result r =
        SedimentCliTest.run(
            "bench",
            "W4",
            "--scan-dir",
            dir.toString(),
            "--scan-column",
            "note",
            "--rounds",
            "1",
            "--json");
    assertThat(r.code()).as(r.err()).isZero();
    // every note is 8 bytes long
    assertThat(JSON.readTree(r.out()).get("columnChecksum").asLong()).isEqualTo(800);
  }

  @Test
  void badDirectoriesAndColumnsAreOneLineErrors() throws Exception {
    SedimentCliTest.Result empty = SedimentCliTest.run("bench", "W4", "--scan-dir", dir.toString());
    assertThat(empty.code()).isEqualTo(2);
    assertThat(empty.err().trim())
        .isEqualTo("Error: --scan-dir " + dir + " holds no *.parquet file");

    writeSediment(dir.resolve("a.parquet"), 0, 10);
    SedimentCliTest.Result column =
        SedimentCliTest.run("bench", "W4", "--scan-dir", dir.toString(), "--scan-column", "nope");
    assertThat(column.code()).isEqualTo(2);
    assertThat(column.err())
        .contains("Parquet file " + dir.resolve("a.parquet") + " has no column 'nope'")
        .contains("[id, note, ts]");

    SedimentCliTest.Result w1 = SedimentCliTest.run("bench", "W1", "--scan-dir", dir.toString());
    assertThat(w1.code()).isEqualTo(2);
    assertThat(w1.err().trim()).isEqualTo("Error: --scan-dir is an option of W4 only");
  }

  private static void writeSediment(Path file, long first, int rows) throws Exception {
    try (DataFileWriter w =
        DataFileWriter.create(
            new org.apache.flink.core.fs.Path(file.toUri()), TYPE, FileFormatOptions.defaults())) {
      for (long i = first; i < first + rows; i++) {
        w.write(
            GenericRowData.of(
                i,
                StringData.fromString(String.format("n%07d", i)),
                TimestampData.fromEpochMillis(1_767_225_600_000L + i)));
      }
      w.finish();
    }
  }

  /**
   * A file as Paimon writes one: plain parquet-mr, another message name, {@code int64} without an
   * integer annotation, field ids, snappy.
   */
  private static void writeOtherWriter(Path file, long first, int rows) throws Exception {
    MessageType schema =
        Types.buildMessage()
            .required(PrimitiveTypeName.INT64)
            .id(0)
            .named("id")
            .optional(PrimitiveTypeName.BINARY)
            .as(LogicalTypeAnnotation.stringType())
            .id(1)
            .named("note")
            .optional(PrimitiveTypeName.INT64)
            .as(LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MILLIS))
            .id(2)
            .named("ts")
            .named("paimon_schema");
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    List<Group> all = new ArrayList<>();
    for (long i = first; i < first + rows; i++) {
      Group g = groups.newGroup();
      g.add("id", i);
      if (i % 10 != 0) { // some nulls
        g.add("note", String.format("n%07d", i));
      }
      g.add("ts", 1_767_225_600_000L + i);
      all.add(g);
    }
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(schema)
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .withConf(new Configuration(false))
            .build()) {
      for (Group g : all) {
        w.write(g);
      }
    }
  }
}
