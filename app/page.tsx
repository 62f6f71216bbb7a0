import { ChatApp } from "@/components/chat/chat-app";
import { Providers } from "./providers";

/** The chat page: a static shell around one client island (providers + chat). */
export default function Page() {
  return (
    <Providers>
      <ChatApp />
    </Providers>
  );
}
