package io.sediment.cli;

import static io.sediment.cli.SedimentCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.cli.SedimentCliTest.Result;
import io.sediment.maintenance.PointInTime;
import io.sediment.manifest.TagManager;
import io.sediment.schema.Durations;
import io.sediment.table.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durations given to procedures and commands need a unit: Flink reads a bare number as
 * milliseconds, so {@code --older-than 30} (days meant) would have removed the files of running
 * writes, and an expiration time of {@code 7} dropped every partition.
 */
class DurationArgumentsTest {

  @TempDir Path dir;

  @Test
  void aBareNumberIsRefusedAndAUnitIsRead() {
    Random random = new Random(7);
    Clock clock = Clock.fixed(Instant.ofEpochMilli(10_000_000_000L), ZoneOffset.UTC);
    for (int i = 0; i < 50; i++) {
      long n = random.nextInt(100_000);
      for (String bare : List.of(String.valueOf(n), " " + n + " ", "0" + n)) {
        assertThatThrownBy(() -> Durations.withUnit(bare))
            .as(bare)
            .hasMessageContaining("has no unit")
            .hasMessageContaining("'7 d'");
        assertThatThrownBy(() -> PointInTime.parse(bare, clock))
            .as(bare)
            .hasMessageContaining("a bare number is refused");
      }
      assertThat(Durations.withUnit(n + " d")).isEqualTo(Duration.ofDays(n));
      assertThat(Durations.withUnit(n + "min")).isEqualTo(Duration.ofMinutes(n));
      assertThat(Durations.withUnit(n + " ms")).isEqualTo(Duration.ofMillis(n));
      assertThat(PointInTime.parse(n + " h", clock))
          .isEqualTo(clock.millis() - Duration.ofHours(n).toMillis());
    }
    for (String bad : Stream.of("", "  ", "d", "1 x", "-1 d").toList()) {
      assertThatThrownBy(() -> Durations.withUnit(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void theCommandsRefuseABareNumberAndChangeNothing() throws Exception {
    Table t = SedimentCliTest.partitionedTable(dir);
    Path orphan = dir.resolve("db.db/t/p=a/data-orphan.parquet");
    Files.writeString(orphan, "not referenced");
    List<Long> snapshots = t.snapshotManager().listIds();
    String w = dir.toString();
    for (String[] args :
        List.of(
            new String[] {
              "remove-orphan-files", "--warehouse", w, "--table", "db.t", "--older-than", "30"
            },
            new String[] {
              "expire-snapshots",
              "--warehouse",
              w,
              "--table",
              "db.t",
              "--older-than",
              "30",
              "--retain-min",
              "1"
            },
            new String[] {
              "expire-partitions", "--warehouse", w, "--table", "db.t", "--expiration-time", "7"
            },
            new String[] {
              "create-tag",
              "--warehouse",
              w,
              "--table",
              "db.t",
              "--tag",
              "x",
              "--time-retained",
              "7"
            },
            new String[] {
              "expire-tags", "--warehouse", w, "--table", "db.t", "--older-than", "7"
            })) {
      Result r = run(args);
      assertThat(r.code()).as(String.join(" ", args)).isNotZero();
      assertThat(r.err())
          .as(String.join(" ", args))
          .containsAnyOf("has no unit", "a bare number is refused");
    }
    assertThat(orphan).exists();
    assertThat(t.snapshotManager().listIds()).as("no snapshot expired").isEqualTo(snapshots);
    assertThat(new TagManager(t.store().fileIO(), t.store().paths()).names()).isEmpty();
  }
}
