package io.sediment.flink.sql;

import io.sediment.systable.SystemTables;
import io.sediment.table.Table;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * Reads a system table ({@code t$snapshots}, ... see {@link SystemTables}): its rows, computed from
 * the table's metadata when the query is planned, as a bounded stream.
 */
final class SystemTableSource implements ScanTableSource {

  private final Table table;
  private final SystemTables.SystemTable systemTable;

  SystemTableSource(Table table, SystemTables.SystemTable systemTable) {
    this.table = table;
    this.systemTable = systemTable;
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return ChangelogMode.insertOnly();
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    List<RowData> rows = systemTable.rows(table);
    RowType rowType = SystemTables.rowType(systemTable);
    TypeInformation<RowData> type = InternalTypeInfo.of(rowType);
    return new DataStreamScanProvider() {
      @Override
      public DataStream<RowData> produceDataStream(
          ProviderContext provider, StreamExecutionEnvironment env) {
        if (rows.isEmpty()) {
          // Flink's fromData of an empty collection fails at run time ("Reached the end of the
          // collection"): one row of nulls, dropped before anything reads it
          return env.fromData(List.<RowData>of(new GenericRowData(rowType.getFieldCount())), type)
              .filter(row -> false)
              .name(asSummaryString());
        }
        return env.fromData(rows, type).name(asSummaryString());
      }

      @Override
      public boolean isBounded() {
        return true;
      }
    };
  }

  @Override
  public DynamicTableSource copy() {
    return new SystemTableSource(table, systemTable);
  }

  @Override
  public String asSummaryString() {
    return "Sediment(" + table.fullName() + SystemTables.SEPARATOR + systemTable.name() + ")";
  }
}
