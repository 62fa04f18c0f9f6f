// TEMP-BUILD-STUB (tooling): safe to delete
import { TASK_STATUSES } from "../shared/task-types";
console.log("worker stub", TASK_STATUSES.join());
