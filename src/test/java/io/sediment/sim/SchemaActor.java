package io.sediment.sim;

import io.sediment.catalog.Identifier;
import io.sediment.schema.SchemaChange;
import io.sediment.schema.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * {@code ALTER TABLE} while the jobs run: adds columns (at the end, first, or after another), drops
 * and moves the columns it added, and widens {@code a} from INT to BIGINT where no option names it.
 * None of this changes the values of {@code k}, {@code a} and {@code b} the model keeps; the jobs
 * go on with the schema they loaded, so their files, and compactions that mix them with files of
 * newer versions, are read by field id.
 */
final class SchemaActor implements Actor {

  private final SimTable sim;
  private final Random rnd;
  private int added;

  SchemaActor(SimTable sim, Random rnd) {
    this.sim = sim;
    this.rnd = rnd;
  }

  @Override
  public String name() {
    return "schema";
  }

  @Override
  public List<String> enabled() {
    return List.of("alter");
  }

  @Override
  public String step(String step) {
    TableSchema s = sim.latest().schema();
    List<String> own = new ArrayList<>();
    for (String n : s.fieldNames()) {
      if (n.startsWith("x")) {
        own.add(n);
      }
    }
    SchemaChange change;
    int r = rnd.nextInt(5);
    if (r == 0 && !own.isEmpty()) {
      change = SchemaChange.dropColumn(own.get(rnd.nextInt(own.size())));
    } else if (r == 1 && !own.isEmpty()) {
      change =
          SchemaChange.updateColumnPosition(
              SchemaChange.Move.first(own.get(rnd.nextInt(own.size()))));
    } else if (r == 2
        && s.rowType().getTypeAt(s.fieldNames().indexOf("a")).getTypeRoot()
            != LogicalTypeRoot.BIGINT
        && !s.options().containsKey("fields.a.aggregate-function")) {
      change = SchemaChange.updateColumnType("a", DataTypes.BIGINT().getLogicalType());
    } else {
      String name = "x" + added++;
      LogicalType type =
          rnd.nextBoolean()
              ? DataTypes.INT().getLogicalType()
              : DataTypes.STRING().getLogicalType();
      List<String> names = s.fieldNames();
      SchemaChange.Move move =
          switch (rnd.nextInt(3)) {
            case 0 -> SchemaChange.Move.first(name);
            case 1 -> SchemaChange.Move.after(name, names.get(rnd.nextInt(names.size())));
            default -> null;
          };
      change = SchemaChange.addColumn(name, type, null, move);
    }
    sim.catalog().alterTable(new Identifier("db", "t"), List.of(change));
    return change + " -> schema " + sim.latest().schema().id();
  }
}
