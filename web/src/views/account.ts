// Signing in and out (Firebase Auth, e-mail and password), who is signed in, and
// deleting the account.
import type { Auth, User } from "firebase/auth";
import { createUserWithEmailAndPassword, signInWithEmailAndPassword, signOut } from "firebase/auth";
import type { Api } from "../api/client";
import { describeError } from "../api/errors";
import { $ } from "../dom";
import type { Store } from "../store";

const AUTH_MESSAGES: Readonly<Record<string, string>> = {
  "auth/email-already-in-use": "an account with this email exists; sign in instead.",
  "auth/invalid-credential": "the email or password is wrong.",
  "auth/wrong-password": "the email or password is wrong.",
  "auth/user-not-found": "there is no account with this email.",
  "auth/invalid-email": "that is not a valid email address.",
  "auth/weak-password": "the password must have at least 6 characters.",
  "auth/network-request-failed": "the sign-in service could not be reached.",
  "auth/user-disabled": "this account was deleted.",
};

/** Why Firebase Auth refused, as a clause ("the email or password is wrong."). */
export function authMessage(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return (typeof code === "string" && AUTH_MESSAGES[code]) || (err instanceof Error ? err.message : String(err));
}

export interface AccountView {
  /** The page for who is signed in now (none: the sign-in page, and nothing else). */
  showUser(user: User | null): void;
}

/** Firebase Auth and the API, once the page has read its configuration. */
export interface Session {
  readonly auth: Auth;
  readonly api: Api;
}

/**
 * Built before the configuration is read, so a click on "Sign in" or "Create account"
 * that comes first (a fast hand, a slow network) waits for it instead of being lost.
 */
export function accountView(store: Store, session: Promise<Session>): AccountView {
  const authForm = $<HTMLFormElement>("auth-form");
  const authError = $("auth-error");
  const authNotice = $("auth-notice");
  const deleteForm = $<HTMLFormElement>("delete-account-form");
  const deleteError = $("delete-account-error");
  const deleteButton = $<HTMLButtonElement>("delete-account");

  async function credentials(action: typeof signInWithEmailAndPassword, label: string): Promise<void> {
    const email = $<HTMLInputElement>("email").value.trim();
    const password = $<HTMLInputElement>("password").value;
    // One message at a time: a new attempt ends the last one's, and the notice of a
    // deletion ("being deleted") too, so a refused sign-in does not stack under it.
    authError.textContent = "";
    authNotice.textContent = "";
    if (!email || password.length < 6) {
      authError.textContent = "Enter your email and a password of at least 6 characters.";
      return;
    }
    try {
      const { auth } = await session;
      await action(auth, email, password);
    } catch (err) {
      authError.textContent = `${label} failed: ${authMessage(err)}`;
    }
  }

  /** Signed out, the sign-in page keeps nothing of who was signed in, not even the email. */
  async function signOutHere(): Promise<void> {
    await signOut((await session).auth);
    authForm.reset();
    authError.textContent = "";
  }

  authForm.addEventListener("submit", (e) => { e.preventDefault(); void credentials(signInWithEmailAndPassword, "Sign in"); });
  $("sign-up").addEventListener("click", () => void credentials(createUserWithEmailAndPassword, "Creating the account"));
  $("sign-out").addEventListener("click", () => void signOutHere());

  deleteForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const typed = $<HTMLInputElement>("delete-account-confirm").value.trim();
    const email = store.user?.email || "";
    deleteError.textContent = "";
    if (!email || typed.toLowerCase() !== email.toLowerCase()) {
      deleteError.textContent = `To delete this account, type the address you sign in with (${email}).`;
      $("delete-account-confirm").focus();
      return;
    }
    const { epoch } = store;
    deleteButton.disabled = true;
    try {
      await (await session).api.deleteAccount(typed);
    } catch (err) {
      if (!store.isCurrent(epoch)) return;
      deleteButton.disabled = false;
      deleteError.textContent = `Your account was not deleted. ${describeError(err)}`;
      return;
    }
    // The account can no longer sign in (the API disabled it before answering); its data
    // is being deleted. Sign out here, which clears the page as for any sign-out.
    await signOutHere();
    authNotice.textContent = "Your account and everything in it are being deleted. It can no longer sign in.";
  });

  store.onReset(() => {
    $("who").textContent = "";
    deleteForm.reset();
    deleteError.textContent = "";
    deleteButton.disabled = false;
  });

  return {
    showUser(user) {
      const signedIn = user !== null;
      $("auth-view").hidden = signedIn;
      $("tabs").hidden = !signedIn;
      $("account").hidden = !signedIn;
      $("who").textContent = user?.email ?? "";
      if (signedIn) {
        $<HTMLInputElement>("password").value = "";
        authNotice.textContent = "";
      } else {
        for (const id of ["notes-view", "ask-view", "search-view"]) $(id).hidden = true;
        $("auth-title").focus();
      }
    },
  };
}
