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
    mySessionsTitle: "Your sessions",
    mySessionsHelp: "The sessions started in this browser, or whose GM link was opened in it (only this browser knows their GM links; lore sessions prints every session's at the server).",
    sessionOpen: "open",
    sessionPaused: "paused",
    sessionEnded: "ended",
    sessionGone: "unknown: its GM link was replaced, or the session is not on this server",
    sessionUnreachable: "the server did not answer",
    forgetSession: "Forget",
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
    // map tokens and log export
    follow: "Follow",
    followNobody: "nobody",
    token_downed: "down",
    token_dead: "dead",
    exportHtml: "Log as HTML",
    exportMarkdown: "Log as Markdown",
    rolledSecretly: "rolled dice secretly",
    ruleError: "rule error",
    answered: "answered",
    answeredFor: "{by} answered for {seat}",
    movedActor: "The GM moved {actor} from {from} to {to}.",
    to: "to",
    noMap: "No map: none of your characters is in an area with a map.",
    error_stale: "Your view was out of date; it is up to date now: answer again.",
    error_paused: "The GM has paused the session.",
    error_rate_limited: "Too fast: wait a moment.",
    otherLanguage: "日本語",
    error_bad_token: "This link is unknown or was revoked.",
    error_unrestorable: "This session could not be restored when the server started.",
    error_not_hello: "The connection did not start properly: reload the page.",
    error_malformed: "The server could not read what this page sent: reload the page.",
    error_too_large: "Too long: a chat line is at most 2,000 characters.",
    error_unknown_type: "The server does not know this request: reload the page.",
    error_unknown_question: "This question is no longer open.",
    error_bad_answer: "The answer does not fit the question: check it and answer again.",
    error_ended: "The session is over.",
    error_forbidden: "Only the GM may do that.",
    error_bad_command: "That GM command could not be done",
    error_bad_roll: "Those dice cannot be rolled: write a dice command such as 2D6 after /roll.",
    error_internal: "The server failed; nothing was changed: try again.",
    error_elsewhere: "This session is served elsewhere: connecting there…",
    gm: "GM",
    sending: "Sending your answer…",
    askedTogether: "Asked {count} times at once ({index} of {count}): answer each; what they lead to happens once all are answered.",
    answerWaits: "Your answer is in: what it leads to happens once the other questions of this moment are answered.",
    gmOwnQuestions: "Your own questions (GM)",
    seatQuestions: "Questions for {seat} (a player's seat)",
    confirmAnswerFor: "Answer for {seat}? The player will see that the GM answered.",
    pausedDialogs: "Paused by the GM: answer once the session goes on.",
    endedDialogs: "The session is over: nothing more to answer.",
    revokedDialogs: "This link was revoked: nothing can be answered from it.",
    youRevoked: "you, link revoked",
    stayHere: "Don't move: stay at {place}",
    areaLabel: "area",
    toLabel: "to",
    actorLabel: "character",
    seatLabelAria: "seat",
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
    mySessionsTitle: "あなたのセッション",
    mySessionsHelp: "このブラウザで始めたセッションと、このブラウザで GM リンクを開いたセッションです（GM リンクはこのブラウザだけが覚えています。サーバーでは lore sessions がすべてのセッションのリンクを表示します）。",
    sessionOpen: "進行中",
    sessionPaused: "一時停止中",
    sessionEnded: "終了",
    sessionGone: "不明：GM リンクが作り直されたか、このサーバーにないセッションです",
    sessionUnreachable: "サーバーが応答しません",
    forgetSession: "一覧から消す",
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
    // map tokens and log export
    follow: "追従",
    followNobody: "なし",
    token_downed: "戦闘不能",
    token_dead: "死亡",
    exportHtml: "ログをHTMLで",
    exportMarkdown: "ログをMarkdownで",
    rolledSecretly: "がシークレットダイスを振りました",
    ruleError: "ルールエラー",
    answered: "回答",
    answeredFor: "{by}が{seat}の代わりに回答",
    movedActor: "GM が {actor} を {from} から {to} に移しました。",
    to: "宛先",
    noMap: "マップはありません（キャラクターがマップのあるエリアにいません）。",
    error_stale: "画面が古くなっていました。最新にしたので、もう一度選んでください。",
    error_paused: "GM がセッションを一時停止しています。",
    error_rate_limited: "速すぎます。少し待ってください。",
    otherLanguage: "English",
    error_bad_token: "このリンクは無効か、存在しません。",
    error_unrestorable: "このセッションはサーバーの起動時に復元できませんでした。",
    error_not_hello: "接続を正しく始められませんでした。ページを再読み込みしてください。",
    error_malformed: "このページが送った内容をサーバーが読めませんでした。ページを再読み込みしてください。",
    error_too_large: "長すぎます。チャットは 2,000 文字までです。",
    error_unknown_type: "サーバーが知らない要求です。ページを再読み込みしてください。",
    error_unknown_question: "この質問はもう締め切られています。",
    error_bad_answer: "質問に合わない回答です。確かめてもう一度答えてください。",
    error_ended: "セッションは終了しています。",
    error_forbidden: "GM だけができる操作です。",
    error_bad_command: "その GM の操作はできませんでした",
    error_bad_roll: "そのダイスは振れません。/roll の後に 2D6 のようなダイスコマンドを書いてください。",
    error_internal: "サーバーでエラーが起きました。何も変わっていないので、もう一度試してください。",
    error_elsewhere: "このセッションは別の場所で動いています。接続し直しています…",
    gm: "GM",
    sending: "回答を送信中…",
    askedTogether: "同じ質問が同時に {count} 回されています（{index}/{count}）。それぞれに答えてください。すべて答えると結果が反映されます。",
    answerWaits: "回答は届きました。この時点のほかの質問にすべて答えると結果が反映されます。",
    gmOwnQuestions: "GM 自身への質問",
    seatQuestions: "{seat} への質問（プレイヤーの席）",
    confirmAnswerFor: "{seat} の代わりに答えますか？ GM が答えたことはプレイヤーに表示されます。",
    pausedDialogs: "GM が一時停止しています。再開したら答えてください。",
    endedDialogs: "セッションは終了しました。答える質問はもうありません。",
    revokedDialogs: "このリンクは無効になりました。ここからは答えられません。",
    youRevoked: "あなた・リンク無効",
    stayHere: "移動しない（{place} に留まる）",
    areaLabel: "エリア",
    toLabel: "宛先",
    actorLabel: "キャラクター",
    seatLabelAria: "席",
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
  for (const el of document.querySelectorAll("[data-i18n-aria]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  }
  for (const el of document.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  const button = document.getElementById("lang");
  button.textContent = t("otherLanguage"); // (each language named in its own)
}

export function currentLanguage() {
  return language;
}

export function t(key) {
  return (TEXTS[language] && TEXTS[language][key]) || TEXTS.en[key] || key;
}

// A text with its {names} filled in from `values`.
export function tf(key, values) {
  return t(key).replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// Game time: ticks are game seconds, shown as day, hour and minute.
export function clockText(tick) {
  const day = Math.floor(tick / 86400) + 1;
  const rest = tick % 86400;
  const hh = String(Math.floor(rest / 3600)).padStart(2, "0");
  const mm = String(Math.floor((rest % 3600) / 60)).padStart(2, "0");
  return language === "ja" ? `${day}${t("day")} ${hh}:${mm}` : `${t("day")} ${day}, ${hh}:${mm}`;
}
