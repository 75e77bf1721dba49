// The texts of the page in English and Japanese, chosen from the browser's language and
// switchable (the choice is remembered in this browser).

const TEXTS = {
  en: {
    startTitle: "Start a session",
    start: "Start",
    uploadTitle: "Or upload a bundle",
    uploadHelp: "A zip of .lore and .xml files (and images), or a session downloaded from Lore to go on with it.",
    problemsTitle: "The rules have errors; no session was started",
    createdTitle: "Your session is ready",
    openAsGm: "Open as GM",
    gmLink: "GM link (keep it to yourself)",
    inviteFor: "Invite for",
    copy: "Copy",
    copied: "Copied",
    map: "Map",
    chat: "Chat",
    send: "Send",
    secret: "secret roll",
    everyone: "everyone",
    gmTools: "GM tools",
    pause: "Pause",
    resume: "Resume",
    download: "Download save",
    sessionLog: "Session log",
    endSession: "End session",
    confirmEnd: "End this session for everyone?",
    seats: "Seats and links",
    addSeat: "Add seat",
    newSeatLabel: "name of the new seat",
    assign: "Actors",
    assignButton: "Move to seat",
    revoke: "Revoke link",
    newLink: "New link",
    revoked: "revoked",
    online: "online",
    offline: "offline",
    reconnecting: "Connection lost: reconnecting…",
    paused: "The GM has paused the session.",
    ended: "The session has ended.",
    revokedLink: "This link was revoked or is unknown. Ask the GM for a new one.",
    answer: "Answer",
    forSeat: "for",
    askedActor: "Asked of",
    pickOnMap: "Pick a place on the map, or choose here:",
    route: "Route",
    distance: "distance",
    noRoute: "no route shown",
    waiting: "Nothing to decide now.",
    you: "you",
    youReconnecting: "you, reconnecting…",
    day: "Day",
    hidden: "hidden",
    rolledSecretly: "rolled dice secretly",
    ruleError: "rule error",
    answered: "answered",
    to: "to",
    noMap: "No map: none of your characters is in an area with a map.",
    error_stale: "Your view was out of date; it is up to date now: answer again.",
    error_paused: "The GM has paused the session.",
    error_rate_limited: "Too fast: wait a moment.",
    choose: "Choose",
    destination: "Destination",
    yes: "Yes",
    no: "No",
    listSeparator: ", ",
    title_route: "Where to?",
    title_move: "Where to move?",
    arrived: "{who} arrived: {place}",
    removeSeat: "Remove seat",
    confirmRemoveSeat: "Remove this seat? Its link stops working.",
    seatNameNeeded: "Give the new seat a name (the player's).",
  },
  ja: {
    startTitle: "セッションを始める",
    start: "開始",
    uploadTitle: "またはバンドルをアップロード",
    uploadHelp: ".lore と .xml（と画像）の zip、または Lore からダウンロードしたセッション（続きから遊べます）。",
    problemsTitle: "ルールにエラーがあります。セッションは作られていません",
    createdTitle: "セッションの準備ができました",
    openAsGm: "GM として開く",
    gmLink: "GM リンク（他の人には渡さないでください）",
    inviteFor: "招待リンク：",
    copy: "コピー",
    copied: "コピーしました",
    map: "マップ",
    chat: "チャット",
    send: "送信",
    secret: "シークレットダイス",
    everyone: "全員",
    gmTools: "GM ツール",
    pause: "一時停止",
    resume: "再開",
    download: "セーブをダウンロード",
    sessionLog: "セッションログ",
    endSession: "セッション終了",
    confirmEnd: "全員のセッションを終了しますか？",
    seats: "席とリンク",
    addSeat: "席を追加",
    newSeatLabel: "新しい席の名前",
    assign: "キャラクター",
    assignButton: "席へ移す",
    revoke: "リンクを無効にする",
    newLink: "新しいリンク",
    revoked: "無効",
    online: "接続中",
    offline: "未接続",
    reconnecting: "接続が切れました。再接続しています…",
    paused: "GM がセッションを一時停止しています。",
    ended: "セッションは終了しました。",
    revokedLink: "このリンクは無効です。GM に新しいリンクをもらってください。",
    answer: "決定",
    forSeat: "対象：",
    askedActor: "質問の対象",
    pickOnMap: "マップで場所を選ぶか、ここから選んでください：",
    route: "経路",
    distance: "距離",
    noRoute: "経路なし",
    waiting: "いま決めることはありません。",
    you: "あなた",
    youReconnecting: "あなた・再接続中…",
    day: "日目",
    hidden: "秘密",
    rolledSecretly: "がシークレットダイスを振りました",
    ruleError: "ルールエラー",
    answered: "回答",
    to: "宛先",
    noMap: "マップはありません（キャラクターがマップのあるエリアにいません）。",
    error_stale: "画面が古くなっていました。最新にしたので、もう一度選んでください。",
    error_paused: "GM がセッションを一時停止しています。",
    error_rate_limited: "速すぎます。少し待ってください。",
    choose: "選択",
    destination: "行き先",
    yes: "はい",
    no: "いいえ",
    listSeparator: "、",
    title_route: "どこへ行きますか？",
    title_move: "どこへ移動しますか？",
    arrived: "{who} が到着しました：{place}",
    removeSeat: "席を外す",
    confirmRemoveSeat: "この席を外しますか？ 席のリンクは使えなくなります。",
    seatNameNeeded: "新しい席の名前（プレイヤーの名前）を入れてください。",
  },
};

export function initialLanguage() {
  const kept = localStorage.getItem("lore.lang");
  if (kept === "ja" || kept === "en") return kept;
  const wanted = navigator.languages || [navigator.language || "en"];
  return wanted.some((l) => String(l).toLowerCase().startsWith("ja")) ? "ja" : "en";
}

let language = "en";

export function setLanguage(lang) {
  language = lang;
  localStorage.setItem("lore.lang", lang);
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  const button = document.getElementById("lang");
  button.textContent = lang === "ja" ? "English" : "日本語";
}

export function currentLanguage() {
  return language;
}

export function t(key) {
  return (TEXTS[language] && TEXTS[language][key]) || TEXTS.en[key] || key;
}

// Game time: ticks are game seconds, shown as day, hour and minute.
export function clockText(tick) {
  const day = Math.floor(tick / 86400) + 1;
  const rest = tick % 86400;
  const hh = String(Math.floor(rest / 3600)).padStart(2, "0");
  const mm = String(Math.floor((rest % 3600) / 60)).padStart(2, "0");
  return language === "ja" ? `${day}${t("day")} ${hh}:${mm}` : `${t("day")} ${day}, ${hh}:${mm}`;
}
