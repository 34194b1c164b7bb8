package io.sediment.flink.sql.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.annotation.ArgumentHint;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A procedure Paimon has too takes Paimon's arguments first, in Paimon's order, so that a call by
 * position (Flink's SQL allows one) means what it means in Paimon; Sediment's own come after.
 * {@code sys.compact} took {@code where} third, so Paimon's {@code ('db.t', 'p=a', '', '',
 * 'target-file-size=128mb')} ran with the table's sizes under a commit user named after the option.
 */
class PaimonArgumentOrderTest {

  private static List<String> declared(Class<?> procedure) {
    Method call =
        Arrays.stream(procedure.getMethods())
            .filter(m -> m.getName().equals("call"))
            .findFirst()
            .orElseThrow();
    List<String> names = new ArrayList<>();
    for (Parameter p : call.getParameters()) {
      ArgumentHint hint = p.getAnnotation(ArgumentHint.class);
      if (hint != null) {
        names.add(hint.name());
      }
    }
    return names;
  }

  @ParameterizedTest
  @ValueSource(strings = {"compact", "expire_snapshots", "remove_orphan_files"})
  void paimonsArgumentsComeFirstInPaimonsOrder(String name) {
    List<String> paimon =
        switch (name) {
          case "compact" ->
              List.of(
                  "table",
                  "partitions",
                  "order_strategy",
                  "order_by",
                  "options",
                  "where",
                  "partition_idle_time",
                  "compact_strategy");
          case "expire_snapshots" ->
              List.of("table", "retain_max", "retain_min", "older_than", "max_deletes");
          case "remove_orphan_files" ->
              List.of("table", "older_than", "dry_run", "parallelism", "mode");
          default -> throw new IllegalArgumentException(name);
        };
    Class<?> procedure =
        switch (name) {
          case "compact" -> CompactProcedure.class;
          case "expire_snapshots" -> ExpireSnapshotsProcedure.class;
          default -> RemoveOrphanFilesProcedure.class;
        };
    assertThat(declared(procedure)).startsWith(paimon.toArray(String[]::new));
  }
}
