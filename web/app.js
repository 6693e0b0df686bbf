// Footnote's minimal web client: Firebase Auth sign-in, then the API through
// Hosting's /api/** rewrite. Served by Firebase Hosting, which provides the
// project's web config at /__/firebase/init.json. Locally (127.0.0.1/localhost)
// it uses the Auth emulator and the API at ?api=… (default http://127.0.0.1:8080).
import { initializeApp } from "https://www.gstatic.com/firebasejs/11.10.0/firebase-app.js";
import {
  getAuth, connectAuthEmulator, onAuthStateChanged, signInWithEmailAndPassword,
  createUserWithEmailAndPassword, signOut,
} from "https://www.gstatic.com/firebasejs/11.10.0/firebase-auth.js";

const local = ["localhost", "127.0.0.1"].includes(location.hostname);
const params = new URLSearchParams(location.search);
const apiBase = params.get("api") || (local ? "http://127.0.0.1:8080" : "/api");
const $ = (id) => document.getElementById(id);
const status = (text) => { $("status").textContent = text; };

async function firebaseConfig() {
  if (local) return { apiKey: "demo-key", authDomain: "localhost", projectId: params.get("project") || "demo-footnote" };
  const response = await fetch("/__/firebase/init.json");
  if (!response.ok) throw new Error("Firebase Hosting did not serve /__/firebase/init.json");
  return response.json();
}

const app = initializeApp(await firebaseConfig());
const auth = getAuth(app);
if (local) connectAuthEmulator(auth, params.get("auth") || "http://127.0.0.1:9099", { disableWarnings: true });

async function call(method, path, body) {
  const token = await auth.currentUser.getIdToken();
  const response = await fetch(apiBase + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error?.message || `HTTP ${response.status}`);
  return data;
}

onAuthStateChanged(auth, (user) => {
  $("signed-in").classList.toggle("hidden", !user);
  $("signed-out").classList.toggle("hidden", !!user);
  $("who").textContent = user ? user.email : "";
  status("");
});

async function credentials(action) {
  try {
    await action(auth, $("email").value, $("password").value);
  } catch (err) {
    status(err.message);
  }
}

$("sign-in").addEventListener("submit", (e) => { e.preventDefault(); credentials(signInWithEmailAndPassword); });
$("sign-up").addEventListener("click", () => credentials(createUserWithEmailAndPassword));
$("sign-out").addEventListener("click", () => signOut(auth));

$("note-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    const note = await call("POST", "/notes", { text: $("note").value });
    $("note").value = "";
    status(`Saved note ${note.id}; it is searchable once indexed.`);
  } catch (err) {
    status(err.message);
  }
});

$("chat-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  status("Thinking…");
  $("answer").textContent = "";
  $("citations").replaceChildren();
  try {
    const reply = await call("POST", "/chat", { message: $("question").value });
    $("answer").textContent = reply.answer; // textContent: note text is never parsed as HTML
    for (const c of reply.citations) {
      const item = document.createElement("li");
      const cid = document.createElement("span");
      cid.className = "cid";
      cid.textContent = `[${c.cid}] `;
      item.append(cid, c.snippet);
      $("citations").append(item);
    }
    status(`confidence ${reply.meta?.confidence ?? "?"} · ${reply.meta?.retrieval?.strategy ?? ""}`);
  } catch (err) {
    status(err.message);
  }
});
