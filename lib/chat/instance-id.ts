/**
 * This process's name among the instances of a deployment, chosen at start: written beside
 * the claims it holds (so a refused retry and an operator can see which instance holds a key)
 * and into its logs. Random, so it reveals nothing about the host.
 */
import { randomBytes } from "node:crypto";

export const INSTANCE_ID = `instance-${randomBytes(4).toString("hex")}`;
