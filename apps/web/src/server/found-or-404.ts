import "server-only";
import { notFound, redirect } from "next/navigation";
import { TRPCError } from "@trpc/server";

/**
 * Loads what a page is about on the server before it renders, so a missing or foreign run or branch
 * answers HTTP 404 at once instead of a 200 page that spins while the client retries.
 */
export async function foundOr404<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof TRPCError && (error.code === "NOT_FOUND" || error.code === "BAD_REQUEST")) notFound();
    if (error instanceof TRPCError && error.code === "UNAUTHORIZED") redirect("/sign-in");
    throw error;
  }
}
