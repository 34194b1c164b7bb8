package io.sediment.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.table.Table;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sediment inspect}: prints what {@link TableInspector} finds, as text or JSON. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description =
        "Show a table's schema, options, latest snapshot, totals and files per partition.")
final class InspectCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin WarehouseOption warehouseOption;

  @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
  String table;

  @Option(names = "--files", description = "List the live files of each partition too.")
  boolean files;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Mixin VerboseOption verbose;

  @Override
  public Integer call() throws Exception {
    Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(Identifier.parse(table));
    Map<String, Object> info = TableInspector.inspect(t, files);
    PrintWriter out = spec.commandLine().getOut();
    out.print(
        json ? new ObjectMapper().writeValueAsString(info) + "\n" : TableInspector.render(info));
    out.flush();
    return ExitCodes.OK;
  }
}
