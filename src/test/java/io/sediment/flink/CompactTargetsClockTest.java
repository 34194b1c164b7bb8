package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.compact.CompactSpec;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dedicated job's targets carry their clock to the task managers (Java serialization, as Flink
 * ships a source): the tables they load there decide on time by a copy of it.
 */
class CompactTargetsClockTest {

  @TempDir Path dir;

  @Test
  void tablesLoadedBySerializedTargetsAreOnACopyOfTheirClock() throws Exception {
    Table table =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            Schema.newBuilder().column("k", DataTypes.BIGINT()).build());
    CompactSpec spec = CompactSpec.forTable("db.t", table.store()).build();
    CompactTargets system = new CompactTargets(dir.toString(), spec);
    assertThat(system.table("db.t").store().clock()).isEqualTo(Clock.systemUTC());

    ManualClock clock = new ManualClock(Instant.parse("2024-05-01T10:00:00Z"));
    CompactTargets shipped =
        InstantiationUtil.clone(system.withClock(clock), getClass().getClassLoader());
    assertThat(shipped.clock().millis()).isEqualTo(clock.millis());
    assertThat(shipped.table("db.t").store().clock().millis()).isEqualTo(clock.millis());
    assertThat(shipped.table("db.t").store().clock()).isSameAs(shipped.clock());
    assertThat(shipped.tableNames()).containsExactly("db.t");

    // A copy: moving the test's clock does not move the shipped one.
    clock.advance(Duration.ofHours(1));
    assertThat(shipped.clock().millis()).isEqualTo(clock.millis() - 3_600_000);
  }
}
