import { createMemoryStore } from "./create-memory-store";
import { describeBudgetScopeContract } from "../../tests/support/budget-scope-contract";
import { describeStoreContract } from "../../tests/support/store-contract";

// One process has one memory store: "instances" of it are the same object.
describeStoreContract("memory", (count) => Array<ReturnType<typeof createMemoryStore>>(count).fill(createMemoryStore()));
describeBudgetScopeContract("memory", (count) => Array<ReturnType<typeof createMemoryStore>>(count).fill(createMemoryStore()));
