package io.sediment.commit;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.core.fs.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every spelling of one table's location names one commit lock (issue 24, case 3). */
class LockKeysTest {

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource({
    "s3://lake/wh/db.db/t, s3a://lake/wh/db.db/t",
    "s3://lake/wh/db.db/t, s3n://lake/wh/db.db/t/",
    "s3://lake/wh/db.db/t, S3P://Lake/wh//db.db/./t",
    "s3://lake/wh/db.db/t, s3a://lake/wh/x/../db.db/t",
    "abfs://c@acct.dfs.core.windows.net/wh/t, abfss://c@acct.dfs.core.windows.net/wh/t",
    "/tmp/wh/db.db/t, file:///tmp/wh/db.db/t",
    "/tmp/wh/db.db/t, file:/tmp/wh//db.db/t/",
    "gs://lake/wh/t, gs://lake/wh/t/",
  })
  void spellingsOfOneTableShareALock(String a, String b) {
    assertThat(LockKeys.of(new Path(b))).isEqualTo(LockKeys.of(new Path(a)));
  }

  @ParameterizedTest(name = "{0} != {1}")
  @CsvSource({
    "s3://lake/wh/db.db/t, s3://lake/wh/db.db/t2",
    "s3://lake/wh/db.db/t, s3://other/wh/db.db/t",
    "s3://lake/wh/db.db/t, gs://lake/wh/db.db/t",
    "/tmp/wh/db.db/t, /tmp/wh/db.db/T",
  })
  void distinctTablesHaveDistinctLocks(String a, String b) {
    assertThat(LockKeys.of(new Path(b))).isNotEqualTo(LockKeys.of(new Path(a)));
  }
}
