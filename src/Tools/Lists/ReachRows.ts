/**
 * The default answer of the lists SVC_REACH=all adds to svc_list_detail, as
 * data, read as Projections.ts's table is: a server's stats over time and its
 * terminals. A stack's services are the docker lists' (DockerRows.ts).
 */

// Typed where Projections.ts spreads it into its table, which this module does not import.
export const REACH_PROJECTIONS = {
  // One sample a row: when, and CPU, memory and disk as the definitions give them (percent, gigabytes);
  // not whose: every row is of the one server the call named. The totals, the same in each sample
  // unless a disk was resized, and the times, one granularity apart, are said once in the first line.
  "read/GetHistoricalServerStats": {
    noun: "samples",
    items: "stats",
    columns: [
      { label: "ts", path: "ts" },
      { label: "cpu_perc", path: "cpu_perc" },
      { label: "mem_used_gb", path: "mem_used_gb" },
      { label: "mem_total_gb", path: "mem_total_gb" },
      { label: "disk_used_gb", path: "disk_used_gb" },
      { label: "disk_total_gb", path: "disk_total_gb" },
    ],
    more: "load_average",
    once: ["mem_total_gb", "disk_total_gb"],
    step: "ts",
  },
  "read/ListTerminals": {
    noun: "terminals",
    columns: [
      { label: "name", path: "name" },
      { label: "target", path: "target.type" },
      { label: "server", path: "target.params.server", name: "server" },
      { label: "command", path: "command" },
      { label: "stored_size_kb", path: "stored_size_kb" },
      { label: "created_at", path: "created_at" },
    ],
    more: "target.params",
  },
} as const
