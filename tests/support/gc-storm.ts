/**
 * `npm run test:gc-storm`: the integration suite with a full garbage collection every
 * GC_STORM_MS milliseconds in each test process (the app, the local world and the test share
 * it). A loaded process collects at moments no quiet run reproduces; this makes them constant,
 * so a link held only weakly (a Request's tie to its caller's signal, a timer's to its signal)
 * breaks every time instead of once in a CI run.
 */
import { fullCollection } from "./collect-garbage";

const every = Number(process.env.GC_STORM_MS);
if (Number.isFinite(every) && every > 0) setInterval(fullCollection, every).unref();
