// GENERATED from loadtest/schema/run.schema.json by scripts/gen-run-types.mjs: do not edit.
// The schema of run.json, for ajv in src/data/validate.ts (why it is copied: scripts/gen-run-types.mjs).
// Regenerate with `npm run gen:types`; tests/generated.test.ts fails while this file is stale.
import type { SchemaObject } from 'ajv';

export const runSchema: SchemaObject = {
 "$schema": "https://json-schema.org/draft/2020-12/schema",
 "$id": "https://tandem.invalid/loadtest/schema/run.schema.json",
 "title": "Tandem bench run (results/<run-id>/run.json)",
 "description": "One bench run (schemaVersion 2): environment (with CPU placement), profile, one record per cell with its windows and pooled summary, the rate sweeps, the overload pairs and the WatchGroup cells (when the profile has any), the A + B*N fits and the headline ratios with intervals and verdicts. Times in milliseconds unless named otherwise, rates per second, sizes in bytes, CPU in seconds or cores. The dashboard reads only this shape.",
 "type": "object",
 "additionalProperties": false,
 "required": [
  "schemaVersion",
  "runId",
  "startedAt",
  "finishedAt",
  "profile",
  "environment",
  "cells",
  "sweeps",
  "fits",
  "headline",
  "notes"
 ],
 "properties": {
  "schemaVersion": {
   "const": 2
  },
  "runId": {
   "description": "UTC start time, profile name and short commit, e.g. 20261122T070000Z-quick-a262159",
   "type": "string",
   "pattern": "^[0-9]{8}T[0-9]{6}Z-[A-Za-z0-9_.-]+$"
  },
  "startedAt": {
   "$ref": "#/$defs/timestamp"
  },
  "finishedAt": {
   "$ref": "#/$defs/timestamp"
  },
  "profile": {
   "description": "The profile as read from its file; name is required, the other settings are free-form.",
   "type": "object",
   "required": [
    "name"
   ],
   "properties": {
    "name": {
     "type": "string",
     "minLength": 1
    }
   }
  },
  "environment": {
   "$ref": "#/$defs/environment"
  },
  "cells": {
   "type": "array",
   "items": {
    "$ref": "#/$defs/cell"
   }
  },
  "sweeps": {
   "type": "array",
   "items": {
    "$ref": "#/$defs/sweep"
   }
  },
  "overload": {
   "description": "The overload pairs (profile [[overload]] blocks, issue #17): per pair and wire, the capacity measured with both wires loaded at once, each step's figures, and the goals with their status. Absent in runs without overload cells (and in runs older than it).",
   "type": "array",
   "items": {
    "$ref": "#/$defs/overloadPair"
   }
  },
  "watch": {
   "description": "The WatchGroup cells (profile [[watch]] blocks, issue #16): change-to-client latency per wire under write load. Absent in runs without them (and in runs older than them).",
   "type": "array",
   "items": {
    "$ref": "#/$defs/watchCell"
   }
  },
  "fits": {
   "type": "array",
   "items": {
    "$ref": "#/$defs/fit"
   }
  },
  "headline": {
   "$ref": "#/$defs/headline"
  },
  "notes": {
   "description": "Anything the reader must know, e.g. a cold cell whose hit ratio was not near 0.",
   "type": "array",
   "items": {
    "type": "string"
   }
  }
 },
 "$defs": {
  "timestamp": {
   "description": "ISO-8601 date-time with offset, e.g. 2026-11-22T07:00:00Z",
   "type": "string",
   "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"
  },
  "nonNegative": {
   "type": "number",
   "minimum": 0
  },
  "nonNegativeOrNull": {
   "type": [
    "number",
    "null"
   ],
   "minimum": 0
  },
  "ratioOrNull": {
   "type": [
    "number",
    "null"
   ],
   "minimum": 0,
   "maximum": 1
  },
  "threadKinds": {
   "description": "a figure per kind of the service's threads, from each thread's name (loadtest/tandem_bench/cpu.py THREAD_KINDS): carrier (the virtual threads' carriers, where each request's own code runs), io (the server's I/O threads: Tomcat's poller and acceptor, Netty's event loops, the JDK's pollers), redis (the Lettuce client's threads), gc (the collector and the VM thread), jit (the compilers), other. In a window (serviceThreads.cpuMsByKind) the CPU ms each kind used, counted per thread (a thread started in the window from zero, one that ended in it left out); in a cell's summary (serviceThreads.cpuUsPerRequestByKind) the µs a successful request over the cell's windows, null where a window lacks the reading. Absent in runs from before it was recorded",
   "type": [
    "object",
    "null"
   ],
   "additionalProperties": false,
   "required": [
    "carrier",
    "io",
    "redis",
    "gc",
    "jit",
    "other"
   ],
   "properties": {
    "carrier": {
     "$ref": "#/$defs/nonNegative"
    },
    "io": {
     "$ref": "#/$defs/nonNegative"
    },
    "redis": {
     "$ref": "#/$defs/nonNegative"
    },
    "gc": {
     "$ref": "#/$defs/nonNegative"
    },
    "jit": {
     "$ref": "#/$defs/nonNegative"
    },
    "other": {
     "$ref": "#/$defs/nonNegative"
    }
   }
  },
  "stringOrNull": {
   "type": [
    "string",
    "null"
   ]
  },
  "hitRatio": {
   "description": "Cache hits / lookups, from the service's own counters: over the measured window (a window's), or over every window of the cell, their hits and misses summed per level (a cell's summary; in runs before 2026-12-02 each level's median over the windows, which could pair an overall with levels of other windows); null when that level is not in play (cacheMode none, l2 under local, l1 under redis).",
   "type": "object",
   "additionalProperties": false,
   "required": [
    "l1",
    "l2",
    "overall"
   ],
   "properties": {
    "l1": {
     "$ref": "#/$defs/ratioOrNull"
    },
    "l2": {
     "$ref": "#/$defs/ratioOrNull"
    },
    "overall": {
     "$ref": "#/$defs/ratioOrNull"
    }
   }
  },
  "environment": {
   "description": "Where the run happened. A figure that could not be read is null.",
   "type": "object",
   "additionalProperties": false,
   "required": [
    "cpuModel",
    "cores",
    "memoryBytes",
    "os",
    "kernel",
    "jdk",
    "springBoot",
    "grpcJava",
    "redis",
    "mariadb",
    "k6",
    "ghz",
    "gitCommit",
    "gitDirty",
    "loadGeneratorNote",
    "h2load",
    "oha",
    "placement",
    "jvm"
   ],
   "properties": {
    "cpuModel": {
     "$ref": "#/$defs/stringOrNull"
    },
    "cores": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 1
    },
    "memoryBytes": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "os": {
     "$ref": "#/$defs/stringOrNull"
    },
    "kernel": {
     "$ref": "#/$defs/stringOrNull"
    },
    "jdk": {
     "$ref": "#/$defs/stringOrNull"
    },
    "springBoot": {
     "$ref": "#/$defs/stringOrNull"
    },
    "grpcJava": {
     "$ref": "#/$defs/stringOrNull"
    },
    "redis": {
     "$ref": "#/$defs/stringOrNull"
    },
    "mariadb": {
     "$ref": "#/$defs/stringOrNull"
    },
    "k6": {
     "$ref": "#/$defs/stringOrNull"
    },
    "ghz": {
     "$ref": "#/$defs/stringOrNull"
    },
    "gitCommit": {
     "$ref": "#/$defs/stringOrNull"
    },
    "gitDirty": {
     "type": [
      "boolean",
      "null"
     ]
    },
    "target": {
     "description": "Set when the bench measured already-running services (make bench TARGET=...): the endpoints it was given. Absent when it started its own.",
     "type": "object",
     "additionalProperties": false,
     "required": [
      "rest",
      "grpc",
      "restManagement",
      "grpcManagement",
      "caFile"
     ],
     "properties": {
      "rest": {
       "type": "string"
      },
      "grpc": {
       "type": "string"
      },
      "restManagement": {
       "type": "array",
       "items": {
        "type": "string"
       }
      },
      "grpcManagement": {
       "type": "array",
       "items": {
        "type": "string"
       }
      },
      "caFile": {
       "$ref": "#/$defs/stringOrNull"
      }
     }
    },
    "loadGeneratorNote": {
     "description": "How the load generator shared the machine with the services (same cores? pinned?).",
     "$ref": "#/$defs/stringOrNull"
    },
    "h2load": {
     "$ref": "#/$defs/stringOrNull"
    },
    "oha": {
     "$ref": "#/$defs/stringOrNull"
    },
    "placement": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "method",
      "services",
      "servers",
      "generator",
      "note"
     ],
     "properties": {
      "method": {
       "enum": [
        "taskset",
        "none"
       ]
      },
      "services": {
       "$ref": "#/$defs/stringOrNull"
      },
      "servers": {
       "$ref": "#/$defs/stringOrNull"
      },
      "generator": {
       "$ref": "#/$defs/stringOrNull"
      },
      "note": {
       "type": "string"
      },
      "serviceCpuQuota": {
       "description": "The CPU cap on the two service JVMs together (profile service_cpu_quota, loadtest/tandem_bench/cpu_quota.py): the cores asked for (null: none asked), how it was applied (a cgroup, or none, the note saying why), the CFS period and quota in microseconds. Absent in runs made before the setting existed.",
       "type": "object",
       "additionalProperties": false,
       "required": [
        "cores",
        "method",
        "periodMicros",
        "quotaMicros",
        "note"
       ],
       "properties": {
        "cores": {
         "type": [
          "number",
          "null"
         ],
         "exclusiveMinimum": 0
        },
        "method": {
         "enum": [
          "cgroup-v2",
          "cgroup-v1",
          "none"
         ]
        },
        "periodMicros": {
         "type": [
          "integer",
          "null"
         ],
         "minimum": 1
        },
        "quotaMicros": {
         "type": [
          "integer",
          "null"
         ],
         "minimum": 1
        },
        "note": {
         "type": "string"
        }
       }
      }
     },
     "description": "Which CPUs each role ran on (taskset CPU lists), or none pinned; and the services' CPU cap, if any."
    },
    "jvm": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "options",
      "heapMaxBytes"
     ],
     "properties": {
      "options": {
       "type": "array",
       "items": {
        "type": "string"
       }
      },
      "heapMaxBytes": {
       "type": [
        "integer",
        "null"
       ],
       "minimum": 0
      }
     },
     "description": "The services' JVM options and the heap maximum they reported."
    }
   }
  },
  "interval": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "value",
    "low",
    "high"
   ],
   "properties": {
    "value": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "low": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "high": {
     "$ref": "#/$defs/nonNegativeOrNull"
    }
   },
   "description": "A median (or pooled figure) and its bootstrap 95 % interval; low/high null with fewer than two windows."
  },
  "ratioInterval": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "value",
    "low",
    "high"
   ],
   "properties": {
    "value": {
     "type": [
      "number",
      "null"
     ]
    },
    "low": {
     "type": [
      "number",
      "null"
     ]
    },
    "high": {
     "type": [
      "number",
      "null"
     ]
    }
   }
  },
  "flag": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "code",
    "reason"
   ],
   "properties": {
    "code": {
     "enum": [
      "generator-saturated",
      "dropped-arrivals",
      "rate-short",
      "errors",
      "hit-ratio",
      "db-reads",
      "unverified",
      "other-cpu",
      "few-samples",
      "jit"
     ]
    },
    "reason": {
     "type": "string",
     "minLength": 1
    }
   }
  },
  "flags": {
   "type": "array",
   "items": {
    "$ref": "#/$defs/flag"
   }
  },
  "window": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "start",
    "round",
    "order",
    "seconds",
    "requests",
    "ok",
    "errors",
    "throughputRps",
    "latencyMs",
    "droppedIterations",
    "achievedRate",
    "hitRatio",
    "cpuSeconds",
    "generatorCores",
    "jvm",
    "db",
    "wireBytesSentPerRequest",
    "wireBytesReceivedPerRequest",
    "timeline",
    "flags"
   ],
   "properties": {
    "start": {
     "type": "integer",
     "minimum": 0
    },
    "round": {
     "type": "integer",
     "minimum": 0
    },
    "order": {
     "type": "integer",
     "minimum": 1
    },
    "seconds": {
     "$ref": "#/$defs/nonNegative"
    },
    "requests": {
     "type": "integer",
     "minimum": 0
    },
    "ok": {
     "type": "integer",
     "minimum": 0
    },
    "errors": {
     "type": "integer",
     "minimum": 0
    },
    "throughputRps": {
     "$ref": "#/$defs/nonNegative"
    },
    "latencyMs": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "p50",
      "p99",
      "max"
     ],
     "properties": {
      "p50": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "p99": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "max": {
       "$ref": "#/$defs/nonNegativeOrNull"
      }
     }
    },
    "serviceLatencyMs": {
     "description": "The measured service's own timing of the window's successful requests of the cell's operation, from its latency histogram (Micrometer's http.server.requests / grpc.server buckets, read before and after the generator's run, and in a window with settle seconds again once they are over; p50/p99 interpolated within a bucket, p99 only from 1,000 requests). It starts where the framework first sees the request. It spans the measured span in an overload window (since the settled reading; before it, the settle seconds too) and the generator's whole run elsewhere. Null where the service publishes no histogram or a reading failed; absent in runs before it.",
     "oneOf": [
      {
       "type": "null"
      },
      {
       "type": "object",
       "additionalProperties": false,
       "required": [
        "count",
        "p50",
        "p99"
       ],
       "properties": {
        "count": {
         "type": "integer",
         "minimum": 0
        },
        "p50": {
         "$ref": "#/$defs/nonNegativeOrNull"
        },
        "p99": {
         "$ref": "#/$defs/nonNegativeOrNull"
        }
       }
      }
     ]
    },
    "droppedIterations": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "achievedRate": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "hitRatio": {
     "$ref": "#/$defs/hitRatio"
    },
    "cpuSeconds": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "rest-service",
      "grpc-service",
      "mariadb",
      "redis",
      "generator",
      "other"
     ],
     "properties": {
      "rest-service": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "grpc-service": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "balancer": {
       "description": "the compose balancer (nginx) in front of the services, where an overload cell went through it; null otherwise",
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "mariadb": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "redis": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "generator": {
       "description": "the load generator; in a paired window (an overload step) both wires' generators together, which share the generator's cores",
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "ownGenerator": {
       "description": "in a paired window only: the window's own wire's generator, apart from the pair's",
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "other": {
       "$ref": "#/$defs/nonNegativeOrNull"
      }
     }
    },
    "generatorCores": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "jvm": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "gcPauseMs",
      "gcPauses",
      "jitMs"
     ],
     "properties": {
      "gcPauseMs": {
       "type": [
        "number",
        "null"
       ]
      },
      "gcPauses": {
       "type": [
        "integer",
        "null"
       ]
      },
      "jitMs": {
       "description": "the JVM's own compilation time (jvm_compilation_time_ms_total): wall time inside compilations",
       "type": [
        "number",
        "null"
       ]
      },
      "jitCpuMs": {
       "description": "CPU time of the JVM's JIT compiler threads (/proc); null against a target",
       "type": [
        "number",
        "null"
       ]
      }
     }
    },
    "db": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "rowsRead",
      "queries"
     ],
     "properties": {
      "rowsRead": {
       "type": [
        "integer",
        "null"
       ]
      },
      "queries": {
       "type": [
        "integer",
        "null"
       ]
      }
     }
    },
    "serviceThreads": {
     "description": "the measured service process from /proc, read before and after the generator's run (null against a target, or in a run from before they were recorded)",
     "type": "object",
     "additionalProperties": false,
     "required": [
      "userCpuMs",
      "systemCpuMs",
      "contextSwitches"
     ],
     "properties": {
      "userCpuMs": {
       "description": "CPU its threads spent in its own code (utime)",
       "type": [
        "number",
        "null"
       ]
      },
      "systemCpuMs": {
       "description": "CPU the kernel spent on its behalf: system calls, page faults (stime)",
       "type": [
        "number",
        "null"
       ]
      },
      "contextSwitches": {
       "description": "voluntary and involuntary context switches of its threads",
       "type": [
        "integer",
        "null"
       ]
      },
      "cpuMsByKind": {
       "$ref": "#/$defs/threadKinds"
      }
     }
    },
    "wireBytesSentPerRequest": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "wireBytesReceivedPerRequest": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "timeline": {
     "type": "array",
     "items": {
      "type": "object",
      "additionalProperties": false,
      "required": [
       "t",
       "rps",
       "p50",
       "p99"
      ],
      "properties": {
       "t": {
        "$ref": "#/$defs/nonNegative"
       },
       "rps": {
        "$ref": "#/$defs/nonNegative"
       },
       "p50": {
        "$ref": "#/$defs/nonNegativeOrNull"
       },
       "p99": {
        "description": "ms, nearest rank over the slice's successful requests; null below 1,000 of them (p50: below 20), the rule of pooled.min_samples",
        "$ref": "#/$defs/nonNegativeOrNull"
       }
      }
     }
    },
    "flags": {
     "$ref": "#/$defs/flags"
    },
    "offeredRate": {
     "description": "Overload cells: the arrival rate this window was driven at (a step's percent of the capacity of its start and round); null for a capacity window. Absent in other cells.",
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "refusals": {
     "description": "Overload cells: requests refused by admission control (HTTP 503 / gRPC UNAVAILABLE).",
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "timeouts": {
     "description": "Overload cells: requests that reached their deadline (HTTP 504 / gRPC DEADLINE_EXCEEDED, or the generator's own timeout, set to the services' request timeout).",
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "otherErrors": {
     "description": "Overload cells: failures that were neither refusals nor timeouts.",
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "lateAnswers": {
     "description": "Overload cells: successful answers that came after the deadline, counted from the request's due time.",
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "l1Flushes": {
     "description": "Overload cells: the measured service's whole-L1 flushes during the window, by reason ({} none); null when its /actuator/cache did not report them.",
     "type": [
      "object",
      "null"
     ],
     "additionalProperties": {
      "type": "number",
      "minimum": 0
     }
    },
    "admissionLimit": {
     "description": "Overload cells: the service's admission concurrency limit (tandem_admission_limit) read after the window; null when it has none.",
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "capThrottling": {
     "description": "Overload cells: what the CPU cap's cgroup counted over the window's measured span (its cpu.stat, read after the settle seconds and after the run; the pair's two cells alike): CFS periods with a runnable thread, periods in which the capped processes ran out of their quota and all stopped until the next, and the time stopped in ms. Null uncapped or unreadable; absent in runs before it.",
     "oneOf": [
      {
       "type": "null"
      },
      {
       "type": "object",
       "additionalProperties": false,
       "required": [
        "periods",
        "throttledPeriods",
        "throttledMs"
       ],
       "properties": {
        "periods": {
         "type": "integer",
         "minimum": 0
        },
        "throttledPeriods": {
         "type": "integer",
         "minimum": 0
        },
        "throttledMs": {
         "type": "number",
         "minimum": 0
        }
       }
      }
     ]
    },
    "admissionRefused": {
     "description": "Overload cells: the requests the measured service says its admission control refused during the window (tandem_admission_refused_total), beside the generator's count of 503 / UNAVAILABLE; null when it does not say. It spans the whole generator run, the settle seconds that no other figure counts included (profile settle_seconds), so it may exceed the generator's count.",
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "exportedSpans": {
     "description": "Traced cells: the spans the measured service's exports brought to the bench's OTLP sink during the window (batched, so they lag its requests by up to the export's schedule delay). Absent for untraced cells.",
     "type": "integer",
     "minimum": 0
    }
   },
   "description": "One measured window (a repetition in one service start)."
  },
  "summary": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "requests",
    "ok",
    "errors",
    "errorRate",
    "samples",
    "throughputRps",
    "latencyMs",
    "latencyIntervalMs",
    "spectrum",
    "bodyBytes",
    "wireBytesSentPerRequest",
    "wireBytesReceivedPerRequest",
    "hitRatio",
    "cpuUsPerRequest",
    "generatorCores",
    "jvm",
    "db",
    "droppedIterations",
    "achievedRate"
   ],
   "properties": {
    "requests": {
     "type": "integer",
     "minimum": 0
    },
    "ok": {
     "type": "integer",
     "minimum": 0
    },
    "errors": {
     "type": "integer",
     "minimum": 0
    },
    "errorRate": {
     "type": "number",
     "minimum": 0,
     "maximum": 1
    },
    "samples": {
     "type": "integer",
     "minimum": 0
    },
    "throughputRps": {
     "$ref": "#/$defs/interval"
    },
    "latencyMs": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "mean",
      "p50",
      "p90",
      "p95",
      "p99",
      "p999",
      "p9999",
      "max"
     ],
     "properties": {
      "mean": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "p50": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "p90": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "p95": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "p99": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "p999": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "p9999": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "max": {
       "$ref": "#/$defs/nonNegativeOrNull"
      }
     },
     "description": "Pooled over every window (HdrHistogram); a percentile is null below 10/(1-p) samples."
    },
    "latencyIntervalMs": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "p50",
      "p99"
     ],
     "properties": {
      "p50": {
       "$ref": "#/$defs/interval"
      },
      "p99": {
       "$ref": "#/$defs/interval"
      }
     }
    },
    "spectrum": {
     "type": "array",
     "items": {
      "type": "object",
      "additionalProperties": false,
      "required": [
       "percentile",
       "ms"
      ],
      "properties": {
       "percentile": {
        "type": "number",
        "minimum": 0,
        "maximum": 100
       },
       "ms": {
        "$ref": "#/$defs/nonNegative"
       }
      }
     }
    },
    "bodyBytes": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "wireBytesSentPerRequest": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "wireBytesReceivedPerRequest": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "hitRatio": {
     "$ref": "#/$defs/hitRatio"
    },
    "cpuUsPerRequest": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "service",
      "mariadb",
      "redis",
      "generator",
      "server"
     ],
     "properties": {
      "service": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "mariadb": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "redis": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "generator": {
       "description": "the cell's own generator's CPU per successful request; in a paired cell (overload) its wire's generator's, not the pair's",
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "server": {
       "$ref": "#/$defs/interval"
      }
     }
    },
    "generatorCores": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "serviceLatencyMs": {
     "description": "The service's own p50/p99 of the cell's successful requests (the windows' histograms summed, then read once; in runs before 2026-12-01 the median of the windows' serviceLatencyMs); absent in runs before it.",
     "type": "object",
     "additionalProperties": false,
     "required": [
      "p50",
      "p99"
     ],
     "properties": {
      "p50": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "p99": {
       "$ref": "#/$defs/nonNegativeOrNull"
      }
     }
    },
    "jvm": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "gcPauseMs",
      "jitMs"
     ],
     "properties": {
      "gcPauseMs": {
       "type": [
        "number",
        "null"
       ]
      },
      "jitMs": {
       "description": "the JVM's own compilation time (jvm_compilation_time_ms_total): wall time inside compilations",
       "type": [
        "number",
        "null"
       ]
      },
      "jitCpuMs": {
       "description": "CPU time of the JVM's JIT compiler threads (/proc); null against a target",
       "type": [
        "number",
        "null"
       ]
      }
     }
    },
    "db": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "rowsReadPerRequest",
      "queriesPerRequest"
     ],
     "properties": {
      "rowsReadPerRequest": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "queriesPerRequest": {
       "$ref": "#/$defs/nonNegativeOrNull"
      }
     }
    },
    "serviceThreads": {
     "description": "how the measured service spent its CPU over the cell's windows; absent in runs from before it was recorded",
     "type": "object",
     "additionalProperties": false,
     "required": [
      "systemShare",
      "contextSwitchesPerRequest"
     ],
     "properties": {
      "systemShare": {
       "description": "system CPU ÷ (user + system) of the service process",
       "type": [
        "number",
        "null"
       ],
       "minimum": 0,
       "maximum": 1
      },
      "contextSwitchesPerRequest": {
       "description": "its threads' context switches per successful request",
       "type": [
        "number",
        "null"
       ]
      },
      "cpuUsPerRequestByKind": {
       "$ref": "#/$defs/threadKinds"
      }
     }
    },
    "droppedIterations": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "achievedRate": {
     "$ref": "#/$defs/nonNegativeOrNull"
    }
   }
  },
  "cell": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "id",
    "protocol",
    "tool",
    "transport",
    "operation",
    "pageSize",
    "cacheMode",
    "temperature",
    "model",
    "concurrency",
    "connections",
    "targetRate",
    "durationSeconds",
    "warmupSeconds",
    "repetitions",
    "starts",
    "tls",
    "sweep",
    "role",
    "windows",
    "summary",
    "flags",
    "headlineEligible"
   ],
   "properties": {
    "id": {
     "type": "string",
     "minLength": 1
    },
    "protocol": {
     "enum": [
      "rest",
      "grpc"
     ]
    },
    "tool": {
     "enum": [
      "k6",
      "ghz",
      "h2load",
      "oha"
     ]
    },
    "transport": {
     "enum": [
      "http1",
      "h2"
     ]
    },
    "operation": {
     "description": "Hello is the framework's hello-world baseline endpoint; it touches no cache.",
     "enum": [
      "GetGroup",
      "ListGroups",
      "Hello"
     ]
    },
    "pageSize": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 1
    },
    "cacheMode": {
     "description": "The service's tandem.cache.mode during the cell.",
     "enum": [
      "none",
      "local",
      "redis",
      "hybrid"
     ]
    },
    "temperature": {
     "enum": [
      "cold",
      "warm",
      "none"
     ]
    },
    "model": {
     "enum": [
      "closed",
      "open"
     ]
    },
    "concurrency": {
     "type": "integer",
     "minimum": 1
    },
    "connections": {
     "type": "integer",
     "minimum": 1
    },
    "targetRate": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "durationSeconds": {
     "$ref": "#/$defs/nonNegative"
    },
    "warmupSeconds": {
     "$ref": "#/$defs/nonNegative"
    },
    "repetitions": {
     "type": "integer",
     "minimum": 1
    },
    "starts": {
     "type": "integer",
     "minimum": 1
    },
    "tls": {
     "type": "boolean"
    },
    "sweep": {
     "$ref": "#/$defs/stringOrNull"
    },
    "role": {
     "enum": [
      "throughput",
      "latency",
      "reference",
      "cold",
      "sweep",
      "capacity",
      "overload"
     ]
    },
    "windows": {
     "type": "array",
     "minItems": 1,
     "items": {
      "$ref": "#/$defs/window"
     }
    },
    "summary": {
     "$ref": "#/$defs/summary"
    },
    "flags": {
     "$ref": "#/$defs/flags"
    },
    "headlineEligible": {
     "type": "boolean"
    },
    "encoding": {
     "description": "REST: the representation the client asked for (Accept): json or protobuf; gRPC: protobuf. Absent in older runs = json (REST).",
     "enum": [
      "json",
      "protobuf"
     ]
    },
    "http": {
     "description": "REST: the HTTP version, 1.1 or 2 (h2c by prior knowledge, h2 by ALPN over TLS); gRPC: 2. Absent in older runs = 1.1 (REST).",
     "enum": [
      "1.1",
      "2"
     ]
    },
    "compression": {
     "description": "What the client asked for: identity, or gzip (REST Accept-Encoding; gRPC a compressed call). Absent in older runs = identity.",
     "enum": [
      "identity",
      "gzip"
     ]
    },
    "revalidate": {
     "description": "REST: the client revalidates a copy it holds (If-None-Match: *, answered 304 with no body; bodyBytes is 0). Absent in older runs = false.",
     "type": "boolean"
    },
    "overload": {
     "description": "Overload cells only: the pair (both wires measured at the same time), the step in percent of the wire's measured capacity (null: the capacity cell, closed model), a request's deadline in seconds and the seconds each window ran before it was measured (absent in runs before them: none).",
     "type": "object",
     "additionalProperties": false,
     "required": [
      "pair",
      "step",
      "timeoutSeconds"
     ],
     "properties": {
      "pair": {
       "type": "string",
       "minLength": 1
      },
      "step": {
       "type": [
        "number",
        "null"
       ],
       "exclusiveMinimum": 0
      },
      "timeoutSeconds": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "settleSeconds": {
       "type": "number",
       "minimum": 0
      }
     }
    },
    "tracing": {
     "description": "Measured against services started traced (tandem.tracing.enabled, every request sampled, spans exported over OTLP/HTTP to the bench's sink), in starts of their own. Absent in older runs = false.",
     "type": "boolean"
    }
   },
   "allOf": [
    {
     "description": "ghz drives gRPC only",
     "if": {
      "properties": {
       "tool": {
        "const": "ghz"
       }
      }
     },
     "then": {
      "properties": {
       "protocol": {
        "const": "grpc"
       }
      }
     }
    },
    {
     "description": "h2load drives gRPC, and REST over HTTP/2 only",
     "if": {
      "properties": {
       "tool": {
        "const": "h2load"
       },
       "protocol": {
        "const": "rest"
       }
      },
      "required": [
       "tool",
       "protocol"
      ]
     },
     "then": {
      "required": [
       "http"
      ],
      "properties": {
       "http": {
        "const": "2"
       },
       "transport": {
        "const": "h2"
       }
      }
     }
    },
    {
     "description": "oha drives REST only",
     "if": {
      "properties": {
       "tool": {
        "const": "oha"
       }
      }
     },
     "then": {
      "properties": {
       "protocol": {
        "const": "rest"
       }
      }
     }
    },
    {
     "description": "ListGroups has a page size; the other operations have none",
     "if": {
      "properties": {
       "operation": {
        "const": "ListGroups"
       }
      }
     },
     "then": {
      "properties": {
       "pageSize": {
        "type": "integer"
       }
      }
     },
     "else": {
      "properties": {
       "pageSize": {
        "type": "null"
       }
      }
     }
    },
    {
     "description": "no cache means no temperature",
     "if": {
      "properties": {
       "cacheMode": {
        "const": "none"
       }
      }
     },
     "then": {
      "properties": {
       "temperature": {
        "const": "none"
       }
      }
     }
    },
    {
     "description": "Hello touches no cache, so it has no temperature, whatever mode the service ran in",
     "if": {
      "properties": {
       "operation": {
        "const": "Hello"
       }
      }
     },
     "then": {
      "properties": {
       "temperature": {
        "const": "none"
       }
      }
     }
    },
    {
     "description": "temperature none only without a cache (or for Hello)",
     "if": {
      "properties": {
       "temperature": {
        "const": "none"
       }
      }
     },
     "then": {
      "anyOf": [
       {
        "properties": {
         "cacheMode": {
          "const": "none"
         }
        }
       },
       {
        "properties": {
         "operation": {
          "const": "Hello"
         }
        }
       }
      ]
     }
    },
    {
     "description": "the open model has a target rate, the closed one none",
     "if": {
      "properties": {
       "model": {
        "const": "open"
       }
      }
     },
     "then": {
      "properties": {
       "targetRate": {
        "type": "number"
       }
      }
     },
     "else": {
      "properties": {
       "targetRate": {
        "type": "null"
       }
      }
     }
    }
   ]
  },
  "fit": {
   "description": "cycle time = a + b * pageSize, least squares over the cells' median latency (metric) at each page size; serverCpu the same over server CPU per request. One fit per wire, tool, cache state, concurrency, TLS and body (encoding, HTTP version, compression).",
   "type": "object",
   "additionalProperties": false,
   "required": [
    "protocol",
    "tool",
    "cacheMode",
    "temperature",
    "operation",
    "concurrency",
    "metric",
    "a",
    "b",
    "r2",
    "points",
    "cellIds"
   ],
   "properties": {
    "protocol": {
     "enum": [
      "rest",
      "grpc"
     ]
    },
    "tool": {
     "enum": [
      "k6",
      "ghz",
      "h2load",
      "oha"
     ]
    },
    "cacheMode": {
     "enum": [
      "none",
      "local",
      "redis",
      "hybrid"
     ]
    },
    "temperature": {
     "enum": [
      "cold",
      "warm",
      "none"
     ]
    },
    "operation": {
     "const": "ListGroups"
    },
    "concurrency": {
     "type": "integer",
     "minimum": 1
    },
    "tls": {
     "description": "Fitted over TLS cells; absent (older runs) means plain.",
     "type": "boolean"
    },
    "encoding": {
     "description": "The fitted cells' representation: json or protobuf on REST, protobuf on gRPC (absent in older runs: the wire's default).",
     "enum": [
      "json",
      "protobuf"
     ]
    },
    "http": {
     "description": "The fitted cells' HTTP version: 1.1 or 2 on REST, 2 on gRPC (absent in older runs: the wire's default).",
     "enum": [
      "1.1",
      "2"
     ]
    },
    "compression": {
     "description": "What the fitted cells' client asked for: identity or gzip (absent in older runs: identity).",
     "enum": [
      "identity",
      "gzip"
     ]
    },
    "metric": {
     "const": "p50"
    },
    "a": {
     "description": "ms: the fitted p50 at page size 0 of the closed-model cells at `concurrency` users; with many users in flight that p50 is mostly queueing (about users / throughput), so this is not a call's fixed cost",
     "type": "number"
    },
    "b": {
     "description": "ms per row of that closed-model p50 (queueing included at many users)",
     "type": "number"
    },
    "r2": {
     "description": "coefficient of determination; null when every point has the same latency (nothing to explain)",
     "type": [
      "number",
      "null"
     ],
     "maximum": 1
    },
    "serverCpu": {
     "description": "server CPU per request (service + MariaDB + Redis, µs) = a + b * pageSize over the same cells: b is the server's CPU per row; null when a cell has no CPU figure",
     "type": [
      "object",
      "null"
     ],
     "additionalProperties": false,
     "required": [
      "a",
      "b",
      "r2"
     ],
     "properties": {
      "a": {
       "description": "µs, the fixed CPU of a call",
       "type": "number"
      },
      "b": {
       "description": "µs per row",
       "type": "number"
      },
      "r2": {
       "type": [
        "number",
        "null"
       ],
       "maximum": 1
      }
     }
    },
    "points": {
     "type": "array",
     "minItems": 2,
     "items": {
      "type": "object",
      "additionalProperties": false,
      "required": [
       "pageSize",
       "latencyMs"
      ],
      "properties": {
       "pageSize": {
        "type": "integer",
        "minimum": 1
       },
       "latencyMs": {
        "type": "number",
        "minimum": 0
       },
       "serverCpuUs": {
        "description": "the cell's server CPU per request (µs), when it has one",
        "type": "number",
        "minimum": 0
       }
      }
     }
    },
    "cellIds": {
     "type": "array",
     "items": {
      "type": "string"
     }
    },
    "tracing": {
     "description": "Fitted over traced cells (present only then).",
     "const": true
    }
   }
  },
  "pair": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "numeratorCellId",
    "denominatorCellId",
    "ratio",
    "low",
    "high",
    "excluded",
    "excludedWhy"
   ],
   "properties": {
    "numeratorCellId": {
     "type": "string"
    },
    "denominatorCellId": {
     "type": "string"
    },
    "ratio": {
     "type": [
      "number",
      "null"
     ]
    },
    "low": {
     "type": [
      "number",
      "null"
     ]
    },
    "high": {
     "type": [
      "number",
      "null"
     ]
    },
    "excluded": {
     "type": "boolean"
    },
    "excludedWhy": {
     "$ref": "#/$defs/stringOrNull"
    }
   }
  },
  "headlineFigure": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "description",
    "value",
    "low",
    "high",
    "verdict",
    "reason",
    "pairs"
   ],
   "properties": {
    "description": {
     "type": "string"
    },
    "value": {
     "type": [
      "number",
      "null"
     ]
    },
    "low": {
     "type": [
      "number",
      "null"
     ]
    },
    "high": {
     "type": [
      "number",
      "null"
     ]
    },
    "verdict": {
     "enum": [
      "finding",
      "inconclusive",
      "flagged",
      "missing"
     ]
    },
    "reason": {
     "$ref": "#/$defs/stringOrNull"
    },
    "pairs": {
     "type": "array",
     "items": {
      "$ref": "#/$defs/pair"
     }
    }
   }
  },
  "headline": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "grpcOverRestP50Warm",
    "grpcOverRestThroughputWarm",
    "grpcOverRestServerCpuPerRequest",
    "warmHybridOverNoneThroughput",
    "jsonOverProtobufBodyBytes",
    "getGroupOverHelloThroughput",
    "tlsOverPlainP50Rest",
    "tlsOverPlainP50Grpc",
    "tlsOverPlainThroughputRest",
    "tlsOverPlainThroughputGrpc"
   ],
   "properties": {
    "grpcOverRestP50Warm": {
     "$ref": "#/$defs/headlineFigure"
    },
    "grpcOverRestThroughputWarm": {
     "$ref": "#/$defs/headlineFigure"
    },
    "grpcOverRestServerCpuPerRequest": {
     "$ref": "#/$defs/headlineFigure"
    },
    "warmHybridOverNoneThroughput": {
     "$ref": "#/$defs/headlineFigure"
    },
    "jsonOverProtobufBodyBytes": {
     "$ref": "#/$defs/headlineFigure"
    },
    "getGroupOverHelloThroughput": {
     "$ref": "#/$defs/headlineFigure"
    },
    "tlsOverPlainP50Rest": {
     "$ref": "#/$defs/headlineFigure"
    },
    "tlsOverPlainP50Grpc": {
     "$ref": "#/$defs/headlineFigure"
    },
    "tlsOverPlainThroughputRest": {
     "$ref": "#/$defs/headlineFigure"
    },
    "tlsOverPlainThroughputGrpc": {
     "$ref": "#/$defs/headlineFigure"
    },
    "stepEncodingServerCpu": {
     "$ref": "#/$defs/headlineFigure"
    },
    "stepEncodingThroughput": {
     "$ref": "#/$defs/headlineFigure"
    },
    "stepHttp2ServerCpu": {
     "$ref": "#/$defs/headlineFigure"
    },
    "stepHttp2Throughput": {
     "$ref": "#/$defs/headlineFigure"
    },
    "stepGrpcServerCpu": {
     "$ref": "#/$defs/headlineFigure"
    },
    "stepGrpcThroughput": {
     "$ref": "#/$defs/headlineFigure"
    },
    "stepDirectServerCpu": {
     "$ref": "#/$defs/headlineFigure"
    },
    "stepDirectThroughput": {
     "$ref": "#/$defs/headlineFigure"
    },
    "gzipOverIdentityServerCpuRest": {
     "$ref": "#/$defs/headlineFigure"
    },
    "gzipOverIdentityServerCpuGrpc": {
     "$ref": "#/$defs/headlineFigure"
    },
    "revalidatedOverFullServerCpu": {
     "$ref": "#/$defs/headlineFigure"
    },
    "revalidatedOverFullThroughput": {
     "$ref": "#/$defs/headlineFigure"
    },
    "getGroupOverHelloServerCpuRest": {
     "$ref": "#/$defs/headlineFigure"
    },
    "getGroupOverHelloServerCpuGrpc": {
     "$ref": "#/$defs/headlineFigure"
    },
    "getGroupOverHelloP50Rest": {
     "$ref": "#/$defs/headlineFigure"
    },
    "getGroupOverHelloP50Grpc": {
     "$ref": "#/$defs/headlineFigure"
    },
    "users500Over50ThroughputRest": {
     "$ref": "#/$defs/headlineFigure"
    },
    "users500Over50ThroughputGrpc": {
     "$ref": "#/$defs/headlineFigure"
    },
    "users500Over50ThroughputMultiplexedGrpc": {
     "$ref": "#/$defs/headlineFigure"
    },
    "tracedOverUntracedServerCpuRest": {
     "$ref": "#/$defs/headlineFigure"
    },
    "tracedOverUntracedServerCpuGrpc": {
     "$ref": "#/$defs/headlineFigure"
    },
    "tracedOverUntracedThroughputRest": {
     "$ref": "#/$defs/headlineFigure"
    },
    "tracedOverUntracedThroughputGrpc": {
     "$ref": "#/$defs/headlineFigure"
    }
   },
   "description": "The step*, gzipOverIdentity* and revalidatedOverFull* figures (where gRPC ÷ REST comes from, one change at a time) and the hot path's goals (getGroupOverHello*, users500Over50*, per wire; users500Over50ThroughputMultiplexedGrpc for 500 gRPC users multiplexed over the 50-user cell's connections) are present only when the run has the cells they pair. The tracedOverUntraced* figures (what tracing costs per wire) are present only when the run has traced cells and their untraced twins."
  },
  "sweep": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "id",
    "protocol",
    "tool",
    "operation",
    "pageSize",
    "cacheMode",
    "temperature",
    "tls",
    "limits",
    "points",
    "knee"
   ],
   "properties": {
    "id": {
     "type": "string"
    },
    "protocol": {
     "enum": [
      "rest",
      "grpc"
     ]
    },
    "tool": {
     "enum": [
      "k6",
      "ghz",
      "h2load",
      "oha"
     ]
    },
    "operation": {
     "description": "Hello is the framework's hello-world baseline endpoint; it touches no cache.",
     "enum": [
      "GetGroup",
      "ListGroups",
      "Hello"
     ]
    },
    "pageSize": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 1
    },
    "cacheMode": {
     "description": "The service's tandem.cache.mode during the cell.",
     "enum": [
      "none",
      "local",
      "redis",
      "hybrid"
     ]
    },
    "temperature": {
     "enum": [
      "cold",
      "warm",
      "none"
     ]
    },
    "tls": {
     "type": "boolean"
    },
    "limits": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "p99Ms",
      "dropRate"
     ],
     "properties": {
      "p99Ms": {
       "$ref": "#/$defs/nonNegative"
      },
      "dropRate": {
       "$ref": "#/$defs/nonNegative"
      }
     }
    },
    "points": {
     "type": "array",
     "items": {
      "type": "object",
      "additionalProperties": false,
      "required": [
       "cellId",
       "targetRate",
       "achievedRate",
       "throughputRps",
       "p50",
       "p99",
       "p999",
       "droppedIterations",
       "errorRate",
       "flags"
      ],
      "properties": {
       "cellId": {
        "type": "string"
       },
       "targetRate": {
        "$ref": "#/$defs/nonNegative"
       },
       "achievedRate": {
        "$ref": "#/$defs/nonNegativeOrNull"
       },
       "throughputRps": {
        "$ref": "#/$defs/nonNegativeOrNull"
       },
       "p50": {
        "$ref": "#/$defs/nonNegativeOrNull"
       },
       "p99": {
        "$ref": "#/$defs/nonNegativeOrNull"
       },
       "p999": {
        "$ref": "#/$defs/nonNegativeOrNull"
       },
       "droppedIterations": {
        "$ref": "#/$defs/nonNegativeOrNull"
       },
       "errorRate": {
        "type": "number",
        "minimum": 0,
        "maximum": 1
       },
       "flags": {
        "$ref": "#/$defs/flags"
       }
      }
     }
    },
    "knee": {
     "$ref": "#/$defs/sweepRateOrNull"
    },
    "saturatedAtLowest": {
     "description": "The sweep's lowest rate already passed the limits (knee null): it saturated at or below that rate, which a knee of null alone does not tell from never saturating. Null otherwise; absent in runs before it.",
     "$ref": "#/$defs/sweepRateOrNull"
    }
   }
  },
  "overloadStep": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "cellId",
    "step",
    "offeredRate",
    "goodputRps",
    "requests",
    "refusals",
    "refusalsPerSecond",
    "timeouts",
    "lateAnswers",
    "otherErrors",
    "p50",
    "p99",
    "hitRatio",
    "minHitRatio",
    "l1Flushes",
    "admissionLimit",
    "minAdmissionLimit",
    "flags"
   ],
   "properties": {
    "cellId": {
     "type": "string"
    },
    "step": {
     "type": [
      "number",
      "null"
     ]
    },
    "offeredRate": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "goodputRps": {
     "$ref": "#/$defs/interval"
    },
    "requests": {
     "type": "integer",
     "minimum": 0
    },
    "refusals": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "refusalsPerSecond": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "timeouts": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "lateAnswers": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "otherErrors": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "p50": {
     "$ref": "#/$defs/interval"
    },
    "p99": {
     "$ref": "#/$defs/interval"
    },
    "hitRatio": {
     "$ref": "#/$defs/ratioOrNull"
    },
    "minHitRatio": {
     "$ref": "#/$defs/ratioOrNull"
    },
    "l1Flushes": {
     "type": [
      "object",
      "null"
     ],
     "additionalProperties": {
      "type": "number",
      "minimum": 0
     }
    },
    "admissionLimit": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "minAdmissionLimit": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "serviceCores": {
     "description": "The CPU the services (and the balancer, where one runs) used in the step's windows, in cores (median): what the profile's CPU cap holds together; absent in runs before it.",
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "serviceP99Ms": {
     "description": "The accepted requests' p99 as the service itself timed them (the step's windows' histograms summed, then read once; in runs before 2026-12-01 the median of the windows' serviceLatencyMs.p99, which reads lower): beside p99, how much of the wait was inside the service; absent in runs before it.",
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "capThrottledShare": {
     "description": "The share of the CPU cap's periods in which the capped processes ran out of their quota (the windows' capThrottling, median): how often the cap itself held every request up; absent in runs before it.",
     "$ref": "#/$defs/ratioOrNull"
    },
    "ioOverCarrier": {
     "description": "The wire's service's CPU on its I/O threads over its CPU on the carriers that run the admitted requests (the windows' serviceThreads.cpuMsByKind, median); absent in runs before it.",
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "flags": {
     "type": "array",
     "items": {
      "type": "string"
     }
    },
    "admissionRefused": {
     "description": "The service's own count of refusals over the step's windows, their settle seconds included (null when it did not say); absent in runs before it.",
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    }
   }
  },
  "overloadGoal": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "key",
    "label",
    "bound",
    "atMost",
    "value",
    "low",
    "high",
    "status",
    "reason"
   ],
   "properties": {
    "key": {
     "type": "string"
    },
    "label": {
     "type": "string"
    },
    "bound": {
     "type": "number"
    },
    "atMost": {
     "type": "boolean"
    },
    "value": {
     "type": [
      "number",
      "null"
     ]
    },
    "low": {
     "type": [
      "number",
      "null"
     ]
    },
    "high": {
     "type": [
      "number",
      "null"
     ]
    },
    "status": {
     "enum": [
      "met",
      "not met",
      "undecided",
      "missing"
     ]
    },
    "reason": {
     "$ref": "#/$defs/stringOrNull"
    }
   },
   "description": "A goal of the issue: met when the whole interval is on its side of the bound, not met when all of it is on the other, undecided when it holds the bound, has none, or rests on windows whose generator could not offer the load (reason). Counts and the lowest hit ratio are exact (low = high = value)."
  },
  "overloadWire": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "protocol",
    "tool",
    "capacity",
    "steps",
    "peak",
    "goodputAt2xOverPeak",
    "p99At2xOverUnloaded",
    "pastDeadlineAt2x",
    "minHitRatio",
    "l1FlushCount",
    "goals"
   ],
   "properties": {
    "protocol": {
     "enum": [
      "rest",
      "grpc"
     ]
    },
    "tool": {
     "enum": [
      "k6",
      "ghz",
      "h2load",
      "oha"
     ]
    },
    "front": {
     "description": "balancer: the wire's requests went through the compose balancer (deploy/compose/nginx.conf) in front of its service; null: straight to the service",
     "enum": [
      null,
      "balancer"
     ]
    },
    "capacity": {
     "oneOf": [
      {
       "type": "null"
      },
      {
       "$ref": "#/$defs/overloadStep"
      }
     ]
    },
    "steps": {
     "type": "array",
     "items": {
      "$ref": "#/$defs/overloadStep"
     }
    },
    "peak": {
     "oneOf": [
      {
       "type": "null"
      },
      {
       "type": "object",
       "additionalProperties": false,
       "required": [
        "step",
        "goodputRps"
       ],
       "properties": {
        "step": {
         "type": "number"
        },
        "goodputRps": {
         "$ref": "#/$defs/interval"
        }
       }
      }
     ]
    },
    "doubleStep": {
     "description": "The step the goals at 2× were read at: the lowest offered at least twice the peak goodput (the most the wire served, its saturating rate), and how many times the peak it offered. null when no step offered that much (the goals at 2× are then missing); absent in runs before it, whose goals were read at the 200 % step of the closed capacity.",
     "oneOf": [
      {
       "type": "null"
      },
      {
       "type": "object",
       "additionalProperties": false,
       "required": [
        "step",
        "offeredOverPeak"
       ],
       "properties": {
        "step": {
         "type": "number"
        },
        "offeredOverPeak": {
         "type": "number",
         "minimum": 0
        }
       }
      }
     ]
    },
    "goodputAt2xOverPeak": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "value",
      "low",
      "high"
     ],
     "properties": {
      "value": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "low": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "high": {
       "$ref": "#/$defs/nonNegativeOrNull"
      }
     }
    },
    "p99At2xOverUnloaded": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "value",
      "low",
      "high"
     ],
     "properties": {
      "value": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "low": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "high": {
       "$ref": "#/$defs/nonNegativeOrNull"
      }
     }
    },
    "pastDeadlineAt2x": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 0
    },
    "minHitRatio": {
     "$ref": "#/$defs/ratioOrNull"
    },
    "l1FlushCount": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "goals": {
     "type": "array",
     "items": {
      "$ref": "#/$defs/overloadGoal"
     }
    },
    "firstSaturatedStep": {
     "description": "The lowest step that served less than 95 % of its offered load (null: none did); absent in runs before it. Goals at 2× are undecided when the 2× step did not saturate.",
     "type": [
      "number",
      "null"
     ]
    },
    "refusalCost": {
     "description": "What a refusal cost in place: the CPU of the wire's refusing processes (cpuOf) over the windows of the saturated steps, fitted as served × servedUs + refused × refusedUs (least squares); ratio = refusedUs ÷ servedUs with its bootstrap interval (a fit: may come out below zero when refusals were few); ratioForGoal = the ratio at which the 2× step's CPU and arrivals would have kept 0.8 of the peak goodput (null: no 2× step, or it needed no refusal). null when the saturated steps refused under 5 % of their requests; absent in runs before it.",
     "oneOf": [
      {
       "type": "null"
      },
      {
       "type": "object",
       "additionalProperties": false,
       "required": [
        "servedUs",
        "refusedUs",
        "ratio",
        "ratioForGoal",
        "windows",
        "cpuOf"
       ],
       "properties": {
        "servedUs": {
         "type": "number"
        },
        "refusedUs": {
         "type": "number"
        },
        "ratio": {
         "type": "object",
         "additionalProperties": false,
         "required": [
          "value",
          "low",
          "high"
         ],
         "properties": {
          "value": {
           "type": "number"
          },
          "low": {
           "type": [
            "number",
            "null"
           ]
          },
          "high": {
           "type": [
            "number",
            "null"
           ]
          }
         }
        },
        "ratioForGoal": {
         "type": [
          "number",
          "null"
         ],
         "minimum": 0
        },
        "windows": {
         "type": "integer",
         "minimum": 2
        },
        "cpuOf": {
         "type": "array",
         "items": {
          "enum": [
           "rest-service",
           "grpc-service",
           "balancer"
          ]
         },
         "minItems": 1
        }
       }
      }
     ]
    }
   }
  },
  "overloadPair": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "id",
    "operation",
    "pageSize",
    "cacheMode",
    "temperature",
    "tls",
    "percents",
    "timeoutSeconds",
    "wires"
   ],
   "properties": {
    "id": {
     "type": "string"
    },
    "operation": {
     "enum": [
      "GetGroup",
      "ListGroups",
      "Hello"
     ]
    },
    "pageSize": {
     "type": [
      "integer",
      "null"
     ],
     "minimum": 1
    },
    "cacheMode": {
     "enum": [
      "none",
      "local",
      "redis",
      "hybrid"
     ]
    },
    "temperature": {
     "enum": [
      "cold",
      "warm",
      "none"
     ]
    },
    "tls": {
     "type": "boolean"
    },
    "percents": {
     "type": "array",
     "items": {
      "type": "number",
      "exclusiveMinimum": 0
     }
    },
    "timeoutSeconds": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "wires": {
     "type": "array",
     "items": {
      "$ref": "#/$defs/overloadWire"
     }
    }
   }
  },
  "watchLatency": {
   "description": "Change-to-client latency in ms over a set of changes: their count, nearest-rank p50 and p99 (null below 20 and 1,000 changes: pooled.min_samples, the rule of every percentile of the bench), and the largest.",
   "type": "object",
   "additionalProperties": false,
   "required": [
    "n",
    "p50",
    "p99",
    "max"
   ],
   "properties": {
    "n": {
     "type": "integer",
     "minimum": 0
    },
    "p50": {
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "p99": {
     "description": "null below 1,000 changes",
     "$ref": "#/$defs/nonNegativeOrNull"
    },
    "max": {
     "$ref": "#/$defs/nonNegativeOrNull"
    }
   }
  },
  "watchWindow": {
   "type": "object",
   "additionalProperties": false,
   "required": [
    "start",
    "round",
    "order",
    "seconds",
    "changes",
    "missed",
    "loadWrites",
    "achievedWriteRate",
    "latencyMs",
    "fromRequestMs",
    "errors"
   ],
   "properties": {
    "start": {
     "type": "integer",
     "minimum": 0
    },
    "round": {
     "type": "integer",
     "minimum": 0
    },
    "order": {
     "type": "integer",
     "minimum": 0
    },
    "seconds": {
     "$ref": "#/$defs/nonNegative"
    },
    "changes": {
     "description": "changes made to the watched groups",
     "type": "integer",
     "minimum": 0
    },
    "missed": {
     "description": "changes a watch did not show within 10 s",
     "type": "integer",
     "minimum": 0
    },
    "loadWrites": {
     "description": "load writes applied (joins and leaves of other groups)",
     "type": "integer",
     "minimum": 0
    },
    "achievedWriteRate": {
     "$ref": "#/$defs/nonNegative"
    },
    "latencyMs": {
     "description": "from each change's write answer to the watch's receipt",
     "$ref": "#/$defs/watchLatency"
    },
    "fromRequestMs": {
     "description": "from each change's write request to the watch's receipt (an upper bound)",
     "$ref": "#/$defs/watchLatency"
    },
    "errors": {
     "type": "array",
     "items": {
      "type": "string"
     }
    }
   }
  },
  "watchCell": {
   "description": "A WatchGroup cell (profile [[watch]] block): change-to-client latency of group watches on one wire while load writers change other groups at writeRate.",
   "type": "object",
   "additionalProperties": false,
   "required": [
    "id",
    "protocol",
    "client",
    "cacheMode",
    "watchers",
    "writeRate",
    "pauseMs",
    "durationSeconds",
    "starts",
    "repetitions",
    "windows",
    "summary"
   ],
   "properties": {
    "id": {
     "type": "string",
     "minLength": 1
    },
    "protocol": {
     "enum": [
      "rest",
      "grpc"
     ]
    },
    "client": {
     "description": "what held the watches open: sse (the bench's Server-Sent Events reader) or grpcurl",
     "enum": [
      "sse",
      "grpcurl"
     ]
    },
    "cacheMode": {
     "enum": [
      "local",
      "redis",
      "hybrid"
     ]
    },
    "watchers": {
     "description": "watches held open, each on a group of its own",
     "type": "integer",
     "minimum": 1
    },
    "writeRate": {
     "description": "load writes per second asked for",
     "$ref": "#/$defs/nonNegative"
    },
    "pauseMs": {
     "description": "most a watched group's writer waited (uniformly random) before each change",
     "$ref": "#/$defs/nonNegative"
    },
    "durationSeconds": {
     "$ref": "#/$defs/nonNegative"
    },
    "starts": {
     "type": "integer",
     "minimum": 1
    },
    "repetitions": {
     "type": "integer",
     "minimum": 1
    },
    "windows": {
     "type": "array",
     "minItems": 1,
     "items": {
      "$ref": "#/$defs/watchWindow"
     }
    },
    "summary": {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "changes",
      "missed",
      "errors",
      "achievedWriteRate",
      "latencyMs",
      "fromRequestMs",
      "windowP50Ms"
     ],
     "properties": {
      "changes": {
       "type": "integer",
       "minimum": 0
      },
      "missed": {
       "type": "integer",
       "minimum": 0
      },
      "errors": {
       "type": "integer",
       "minimum": 0
      },
      "achievedWriteRate": {
       "$ref": "#/$defs/nonNegative"
      },
      "latencyMs": {
       "$ref": "#/$defs/watchLatency"
      },
      "fromRequestMs": {
       "$ref": "#/$defs/watchLatency"
      },
      "windowP50Ms": {
       "description": "the smallest and largest window p50",
       "type": [
        "object",
        "null"
       ],
       "additionalProperties": false,
       "required": [
        "min",
        "max"
       ],
       "properties": {
        "min": {
         "$ref": "#/$defs/nonNegative"
        },
        "max": {
         "$ref": "#/$defs/nonNegative"
        }
       }
      }
     }
    }
   }
  },
  "sweepRateOrNull": {
   "oneOf": [
    {
     "type": "null"
    },
    {
     "type": "object",
     "additionalProperties": false,
     "required": [
      "targetRate",
      "throughputRps",
      "reason"
     ],
     "properties": {
      "targetRate": {
       "$ref": "#/$defs/nonNegative"
      },
      "throughputRps": {
       "$ref": "#/$defs/nonNegativeOrNull"
      },
      "reason": {
       "type": "string"
      }
     }
    }
   ]
  }
 }
};
