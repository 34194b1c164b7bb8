package io.sediment.flink.sql.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.compact.PartitionFilters;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code CALL sys.compact(partitions => ...)} parses each partition by the rule the CLI's {@code
 * --partition} uses ({@link PartitionFilters#parseSpec}): the same partitions, the same refusals.
 */
class PartitionSpecsTest {

  @Test
  void eachPartitionIsParsedByTheCliRule() {
    for (String one : List.of("dt=2024-01-01", " dt = 2024-01-01 , hh= 3", "p=", "p=a b")) {
      assertThat(PartitionSpecs.parse(one + ";" + one))
          .as(one)
          .containsExactly(PartitionFilters.parseSpec(one), PartitionFilters.parseSpec(one));
    }
    assertThat(PartitionSpecs.parse(" dt = 2024-01-01 , hh= 3"))
        .containsExactly(Map.of("dt", "2024-01-01", "hh", "3"));
    for (String bad : List.of("dt==2024-01-01", "p=a,p=b", "=a", "p", " =a")) {
      String why =
          org.assertj.core.api.Assertions.catchThrowable(() -> PartitionFilters.parseSpec(bad))
              .getMessage();
      assertThatThrownBy(() -> PartitionSpecs.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Partition spec " + why);
    }
    assertThatThrownBy(() -> PartitionSpecs.parse("dt==d1"))
        .hasMessage("Partition spec 'dt==d1': the value of dt starts with '=' (write dt=d1)");
  }
}
